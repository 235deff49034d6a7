package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.INVOICE_SERIES;

import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * The settings of invoice series. One matters by law: what an order's cancellation does to an
 * invoice whose number is already reserved ({@link CancelRule}). A draft without a number is
 * cancelled without consuming one under every rule, and an issued invoice stays issued, marked
 * cancelled.
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

  /**
   * Applies an order's cancellation to its invoice inside the caller's transaction: a draft becomes
   * {@code CANCELLED} without a number; a numbered invoice keeps its number and is marked cancelled
   * (once); one in {@code ERROR} is voided at once when its series' rule is {@link
   * CancelRule#VOID}. One still {@code SENDING} is left to the issuer, since a call may be in
   * flight: it voids the invoice on its next attempt if the integrator does not have it (see {@link
   * #voidIfCancelled}).
   */
  static void cancel(
      DSLContext tx, UUID orderId, String reason, OffsetDateTime now, InvoiceEvents events) {
    tx.update(INVOICE)
        .set(INVOICE.STATUS, InvoiceStatus.CANCELLED.name())
        .set(INVOICE.NEXT_ATTEMPT_AT, (OffsetDateTime) null)
        .set(INVOICE.CANCELLED_AT, now)
        .set(INVOICE.CANCEL_REASON, reason)
        .where(INVOICE.ORDER_ID.eq(orderId))
        .and(INVOICE.STATUS.eq(InvoiceStatus.DRAFT.name()))
        .execute();
    tx.update(INVOICE)
        .set(INVOICE.CANCELLED_AT, now)
        .set(INVOICE.CANCEL_REASON, reason)
        .where(INVOICE.ORDER_ID.eq(orderId))
        .and(INVOICE.CANCELLED_AT.isNull())
        .and(
            INVOICE.STATUS.in(
                InvoiceStatus.SENDING.name(),
                InvoiceStatus.ISSUED.name(),
                InvoiceStatus.ERROR.name()))
        .execute();
    voidCancelled(
        tx,
        INVOICE.ORDER_ID.eq(orderId).and(INVOICE.STATUS.eq(InvoiceStatus.ERROR.name())),
        events);
  }

  /**
   * Voids a cancelled invoice that is not issued ({@code SENDING} after a look-up found nothing at
   * the integrator, or {@code ERROR}) when its series' rule is {@link CancelRule#VOID}. Returns
   * true when it did. The number stays accounted for, with the cancellation's reason.
   */
  static boolean voidIfCancelled(DSLContext dsl, long invoiceRowId, InvoiceEvents events) {
    return dsl.transactionResult(
            c ->
                voidCancelled(
                    c.dsl(),
                    INVOICE
                        .ID
                        .eq(invoiceRowId)
                        .and(INVOICE.CANCELLED_AT.isNotNull())
                        .and(
                            INVOICE.STATUS.in(
                                InvoiceStatus.SENDING.name(), InvoiceStatus.ERROR.name())),
                    events))
        == 1;
  }

  /**
   * Voids the cancelled invoices {@code which} selects whose series voids on cancel, each with an
   * {@code InvoiceVoided} event, in {@code tx}.
   */
  private static int voidCancelled(DSLContext tx, Condition which, InvoiceEvents events) {
    var voided =
        tx.update(INVOICE)
            .set(INVOICE.STATUS, InvoiceStatus.VOIDED.name())
            .set(INVOICE.VOID_REASON, DSL.val("order cancelled: ").concat(INVOICE.CANCEL_REASON))
            .set(INVOICE.NEXT_ATTEMPT_AT, (OffsetDateTime) null)
            .where(which)
            .and(voidsOnCancel())
            .returning()
            .fetch();
    voided.forEach(inv -> events.voided(tx, inv));
    return voided.size();
  }

  /** The invoice's series voids on cancel (a series without a counter row has the default). */
  private static Condition voidsOnCancel() {
    return DSL.coalesce(
            DSL.field(
                DSL.select(INVOICE_SERIES.CANCEL_RULE)
                    .from(INVOICE_SERIES)
                    .where(INVOICE_SERIES.SERIES.eq(INVOICE.SERIES))),
            DSL.val(CancelRule.VOID.name()))
        .eq(CancelRule.VOID.name());
  }
}
