package dev.ordinal.monitor.internal;

/**
 * One input event reduced to what the checks need. {@code invoiceId}, {@code series} and {@code
 * number} are set for {@code InvoiceIssued} only ({@code series} may be null).
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

    /** The type for an {@code event-type} header value, or null for one the monitor ignores. */
    static Type of(String eventType) {
      return switch (eventType) {
        case "OrderPlaced" -> ORDER_PLACED;
        case "OrderCancelled" -> ORDER_CANCELLED;
        case "InvoiceIssued" -> INVOICE_ISSUED;
        case "InvoiceVoided" -> INVOICE_VOIDED;
        default -> null;
      };
    }
  }
}
