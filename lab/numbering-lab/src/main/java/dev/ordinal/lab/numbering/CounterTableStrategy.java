package dev.ordinal.lab.numbering;

import static dev.ordinal.lab.numbering.LabTables.NEXT_NO;
import static dev.ordinal.lab.numbering.LabTables.SERIES;

import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.Table;

/**
 * A lab strategy that takes its numbers from a counter row of its own ({@code lab_<prefix>_series},
 * one row per series, starting at 1): what it handed out is the counter minus one.
 */
abstract class CounterTableStrategy extends LabTableStrategy {
  protected final Table<Record> counter;

  CounterTableStrategy(DSLContext dsl, String series, LabResult.Strategy kind) {
    super(dsl, series, kind);
    this.counter = LabTables.counter(kind.key());
  }

  /** Creates the strategy's tables, the invoices empty and the counter at 1. */
  @Override
  void setUp() {
    super.setUp();
    LabTables.recreateCounter(dsl, counter, series);
  }

  @Override
  long handedOut() {
    return dsl.select(NEXT_NO).from(counter).where(SERIES.eq(series)).fetchOne().value1() - 1;
  }
}
