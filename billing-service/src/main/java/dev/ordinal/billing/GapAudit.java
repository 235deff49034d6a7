package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.INVOICE_SERIES;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jooq.DSLContext;
import org.jooq.Record2;
import org.jooq.impl.DSL;

/**
 * Checks that every series is numbered exactly 1..N: per series the highest number, counts by
 * status, every missing number (gap) and every number held by more than one invoice (duplicate).
 * Numbers the series' counter handed out beyond the highest one an invoice holds are gaps too.
 */
public final class GapAudit {
  private final DSLContext dsl;

  public GapAudit(DSLContext dsl) {
    this.dsl = dsl;
  }

  /** One series' figures. */
  public record SeriesReport(
      String series,
      long highest,
      Map<InvoiceStatus, Integer> byStatus,
      List<long[]> gaps,
      List<Long> duplicates) {
    public boolean clean() {
      return gaps.isEmpty() && duplicates.isEmpty();
    }

    public long missingNumbers() {
      return gaps.stream().mapToLong(g -> g[1] - g[0] + 1).sum();
    }
  }

  /** Every series, or only {@code series} when not null. */
  public List<SeriesReport> run(String series) {
    var where = series == null ? DSL.noCondition() : INVOICE.SERIES.eq(series);
    Map<String, Map<InvoiceStatus, Integer>> statuses = new TreeMap<>();
    for (Record2<String, String> r :
        dsl.select(INVOICE.SERIES, INVOICE.STATUS).from(INVOICE).where(where).fetch()) {
      statuses
          .computeIfAbsent(r.value1(), k -> new EnumMap<>(InvoiceStatus.class))
          .merge(InvoiceStatus.valueOf(r.value2()), 1, Integer::sum);
    }
    List<SeriesReport> reports = new ArrayList<>();
    for (Map.Entry<String, Map<InvoiceStatus, Integer>> e : statuses.entrySet()) {
      // the counter first: every number below it was committed with it, so the numbers read
      // next include them all (no false gap from a reservation committed in between)
      Long counter =
          dsl.select(INVOICE_SERIES.NEXT_NO)
              .from(INVOICE_SERIES)
              .where(INVOICE_SERIES.SERIES.eq(e.getKey()))
              .fetchOne(INVOICE_SERIES.NEXT_NO);
      List<Long> numbers =
          dsl.select(INVOICE.NUMBER)
              .from(INVOICE)
              .where(INVOICE.SERIES.eq(e.getKey()))
              .and(INVOICE.NUMBER.isNotNull())
              .orderBy(INVOICE.NUMBER)
              .fetch(INVOICE.NUMBER);
      Numbering n = numbering(numbers, counter);
      reports.add(
          new SeriesReport(e.getKey(), n.highest(), e.getValue(), n.gaps(), n.duplicates()));
    }
    return reports;
  }

  /**
   * What a series' numbers show.
   *
   * @param highest the highest number held, 0 for none
   * @param gaps the missing ranges, {@code {from, to}} inclusive, ascending
   * @param duplicates every number held more than once, once each, ascending
   */
  public record Numbering(long highest, List<long[]> gaps, List<Long> duplicates) {}

  /**
   * The audit of one series on its numbers alone: {@code numbers} are the numbers its invoices
   * hold, ascending (a number held twice appears twice); {@code counter} is the next number its
   * counter would hand out, or null for no counter. Every number from 1 up to the highest held that
   * no invoice holds is a gap, and so is every number the counter handed out above that.
   */
  public static Numbering numbering(List<Long> numbers, Long counter) {
    List<long[]> gaps = new ArrayList<>();
    List<Long> duplicates = new ArrayList<>();
    long expected = 1;
    Long previous = null;
    for (long n : numbers) {
      if (previous != null && n == previous) {
        if (duplicates.isEmpty() || duplicates.get(duplicates.size() - 1) != n) {
          duplicates.add(n);
        }
        continue;
      }
      if (n > expected) {
        gaps.add(new long[] {expected, n - 1});
      }
      expected = n + 1;
      previous = n;
    }
    if (counter != null && counter > expected) {
      // numbers the counter handed out that no invoice holds
      gaps.add(new long[] {expected, counter - 1});
    }
    return new Numbering(expected - 1, gaps, duplicates);
  }
}
