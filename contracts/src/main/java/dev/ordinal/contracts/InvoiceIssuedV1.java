package dev.ordinal.contracts;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.math.BigDecimal;
import java.util.UUID;

/**
 * {@code InvoiceIssued}, version 1: the integrator holds the invoice's number. Billing writes it in
 * the transaction that marks the invoice issued, on {@code <prefix>.invoice}, keyed by the order
 * id.
 *
 * <pre>{@code
 * {"invoiceId":"…","orderId":"…","series":"F2026-A","number":17,"total":"31.00","currency":"EUR"}
 * }</pre>
 *
 * <p>All fields are required; {@code number} is a JSON number, at least 1.
 *
 * @param invoiceId the invoice's id towards the integrator (derived from the order id)
 * @param series the invoice series the number belongs to
 * @param number the invoice's number in {@code series}
 */
@JsonPropertyOrder({"invoiceId", "orderId", "series", "number", "total", "currency"})
public record InvoiceIssuedV1(
    UUID invoiceId, UUID orderId, String series, long number, BigDecimal total, String currency)
    implements EventPayload {

  private static final EventType TYPE = EventType.INVOICE_ISSUED;

  public InvoiceIssuedV1 {
    Required.invoiceNumber(TYPE, invoiceId, orderId, series, number);
    Required.present(TYPE, "total", total);
    Required.present(TYPE, "currency", currency);
  }

  @Override
  public EventType type() {
    return TYPE;
  }
}
