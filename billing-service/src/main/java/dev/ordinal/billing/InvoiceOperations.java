package dev.ordinal.billing;

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
    return InvoiceLifecycle.resendByOperator(dsl, invoiceRowId);
  }

  /** ERROR → VOIDED with {@code reason} (required); the number stays taken. False if not ERROR. */
  public boolean voidInvoice(long invoiceRowId, String reason) {
    if (reason == null || reason.isBlank()) {
      throw new IllegalArgumentException("A voided number needs a reason");
    }
    return InvoiceLifecycle.voidByOperator(dsl, invoiceRowId, reason, events);
  }
}
