package dev.ordinal.contracts;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.UUID;

/**
 * {@code InvoiceVoided}, version 1: a reserved number was voided with a reason; it stays accounted
 * for in its series, and the order has no invoice. Billing writes it in the transaction of the
 * void, on {@code <prefix>.invoice}, keyed by the order id.
 *
 * <pre>{@code
 * {"invoiceId":"…","orderId":"…","series":"F2026-A","number":18,"reason":"order cancelled"}
 * }</pre>
 *
 * <p>All fields are required; {@code number} is a JSON number, at least 1.
 */
@JsonPropertyOrder({"invoiceId", "orderId", "series", "number", "reason"})
public record InvoiceVoidedV1(
    UUID invoiceId, UUID orderId, String series, long number, String reason)
    implements EventPayload {

  private static final EventType TYPE = EventType.INVOICE_VOIDED;

  public InvoiceVoidedV1 {
    Required.invoiceNumber(TYPE, invoiceId, orderId, series, number);
    Required.present(TYPE, "reason", reason);
  }

  @Override
  public EventType type() {
    return TYPE;
  }
}
