package dev.ordinal.monitor.internal;

import dev.ordinal.contracts.EventType;

/**
 * One input event reduced to what the checks need. {@code invoiceId}, {@code series} and {@code
 * number} are set for {@code InvoiceIssued} and {@code InvoiceVoided} only.
 */
public record Event(
    Type type, String messageId, String orderId, String invoiceId, String series, Long number) {

  public enum Type {
    ORDER_PLACED,
    ORDER_CANCELLED,
    INVOICE_ISSUED,
    /** A number voided (with a reason): accounted for in its series, no invoice for the order. */
    INVOICE_VOIDED;

    /** Carries a series and a number. */
    public boolean numbered() {
      return this == INVOICE_ISSUED || this == INVOICE_VOIDED;
    }

    /** The type of the contract's event (every one of them: the monitor checks them all). */
    static Type of(EventType eventType) {
      return switch (eventType) {
        case ORDER_PLACED -> ORDER_PLACED;
        case ORDER_CANCELLED -> ORDER_CANCELLED;
        case INVOICE_ISSUED -> INVOICE_ISSUED;
        case INVOICE_VOIDED -> INVOICE_VOIDED;
      };
    }
  }
}
