package dev.ordinal.lab.numbering;

import static dev.ordinal.lab.numbering.LabTables.NUMBER;
import static dev.ordinal.lab.numbering.LabTables.SERIES;

import dev.ordinal.billing.EInvoiceIntegrator;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * {@code max(number) + 1} at send time: a short query reads the highest stored number, the
 * integrator is called with the next one, and the number is stored only once it was accepted. Two
 * workers that read the same maximum send two invoices under one number; the integrator refuses the
 * second (409, a duplicate at the integrator) and the invoice goes round again. No unique
 * constraint on the table: the race is the strategy's, not the database's.
 */
final class MaxPlusOneStrategy extends LabTableStrategy {
  MaxPlusOneStrategy(DSLContext dsl, String series) {
    super(dsl, series, LabResult.Strategy.MAX_PLUS_ONE);
  }

  @Override
  Step attempt(EInvoiceIntegrator integrator, Open invoice) {
    long number =
        dsl.select(DSL.coalesce(DSL.max(NUMBER), 0L))
                .from(invoices)
                .where(SERIES.eq(series))
                .fetchOne()
                .value1()
            + 1;
    // a number taken: another worker's invoice got it first, so read the maximum again
    return sendUnder(integrator, invoice, number, true);
  }
}
