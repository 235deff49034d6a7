package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE_SERIES;

import java.util.List;
import org.jooq.DSLContext;

/**
 * The settings of invoice series. One matters by law: what an order's cancellation does to an
 * invoice whose number is already reserved ({@link CancelRule}). A draft without a number is
 * cancelled without consuming one under every rule, and an issued invoice stays issued, marked
 * cancelled. The transitions themselves are in {@link InvoiceLifecycle}.
 */
public final class InvoiceSeries {
  /** The longest series name the schema holds. */
  public static final int MAX_NAME_LENGTH = 16;

  /** What a cancellation does to a reserved number that is not issued yet. */
  public enum CancelRule {
    /** Void it with the cancellation's reason; the number stays accounted for (the default). */
    VOID,
    /** Issue it anyway, then mark the invoice cancelled (a credit note follows). */
    ISSUE_THEN_CANCEL
  }

  /** One series: its next number and its cancel rule. */
  public record Settings(String series, long nextNumber, CancelRule cancelRule) {}

  private final DSLContext dsl;

  public InvoiceSeries(DSLContext dsl) {
    this.dsl = dsl;
  }

  /**
   * Sets the cancel rule of {@code series}, creating the series (next number 1) when it has none
   * yet. Numbers already reserved are not touched; invoices cancelled from now on follow the rule.
   */
  public void setCancelRule(String series, CancelRule rule) {
    if (series == null || series.isBlank() || series.length() > MAX_NAME_LENGTH) {
      throw new IllegalArgumentException(
          "A series name must be 1 to " + MAX_NAME_LENGTH + " characters, not '" + series + "'");
    }
    dsl.insertInto(INVOICE_SERIES)
        .set(INVOICE_SERIES.SERIES, series)
        .set(INVOICE_SERIES.NEXT_NO, 1L)
        .set(INVOICE_SERIES.CANCEL_RULE, rule.name())
        .onConflict(INVOICE_SERIES.SERIES)
        .doUpdate()
        .set(INVOICE_SERIES.CANCEL_RULE, rule.name())
        .execute();
  }

  /** Every series with a counter row, by name. */
  public List<Settings> list() {
    return dsl.selectFrom(INVOICE_SERIES)
        .orderBy(INVOICE_SERIES.SERIES)
        .fetch(
            r -> new Settings(r.getSeries(), r.getNextNo(), CancelRule.valueOf(r.getCancelRule())));
  }
}
