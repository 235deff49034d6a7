package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;

import java.time.OffsetDateTime;
import org.jooq.DSLContext;

/**
 * What an operator does with an invoice in {@code ERROR} (rejected by the integrator, number kept):
 * send it again after a fix, or void it with a reason. Either way the number stays accounted for.
 */
public final class InvoiceOperations {
  private final DSLContext dsl;
  private final InvoiceEvents events = new InvoiceEvents(java.time.Clock.systemUTC());

  public InvoiceOperations(DSLContext dsl) {
    this.dsl = dsl;
  }

  /** ERROR → SENDING with the same number; the issuer picks it up. False if not in ERROR. */
  public boolean resend(long invoiceRowId) {
    return dsl.update(INVOICE)
            .set(INVOICE.STATUS, InvoiceStatus.SENDING.name())
            .set(INVOICE.NEXT_ATTEMPT_AT, (OffsetDateTime) null)
            .where(INVOICE.ID.eq(invoiceRowId))
            .and(INVOICE.STATUS.eq(InvoiceStatus.ERROR.name()))
            .execute()
        == 1;
  }

  /** ERROR → VOIDED with {@code reason} (required); the number stays taken. False if not ERROR. */
  public boolean voidInvoice(long invoiceRowId, String reason) {
    if (reason == null || reason.isBlank()) {
      throw new IllegalArgumentException("A voided number needs a reason");
    }
    return dsl.transactionResult(
        c -> {
          var voided =
              c.dsl()
                  .update(INVOICE)
                  .set(INVOICE.STATUS, InvoiceStatus.VOIDED.name())
                  .set(
                      INVOICE.VOID_REASON,
                      reason.length() > 500 ? reason.substring(0, 500) : reason)
                  .where(INVOICE.ID.eq(invoiceRowId))
                  .and(INVOICE.STATUS.eq(InvoiceStatus.ERROR.name()))
                  .returning()
                  .fetch();
          // the number stays accounted for where the invoice events are read, too
          voided.forEach(inv -> events.voided(c.dsl(), inv));
          return voided.size() == 1;
        });
  }
}
