package dev.ordinal.billing;

import dev.ordinal.messaging.inbox.Envelope;
import java.util.UUID;

/** Order events as billing's handler receives them, each under a new message id. */
final class OrderMessages {
  private OrderMessages() {}

  /** {@code OrderPlaced} for {@code order}, 20.00 EUR, in {@code series} (null: the default). */
  static Envelope placed(UUID order, String series) {
    return new Envelope(
        UUID.randomUUID().toString(),
        InvoiceHandler.ORDER_PLACED,
        "order",
        order.toString(),
        "{\"orderId\":\""
            + order
            + "\",\"customerId\":\"c\",\"currency\":\"EUR\",\"total\":\"20.00\""
            + (series == null ? "" : ",\"invoiceSeries\":\"" + series + "\"")
            + "}",
        "t",
        0,
        0);
  }

  /** {@code OrderCancelled} for {@code order}, reason "changed mind". */
  static Envelope cancelled(UUID order) {
    return new Envelope(
        UUID.randomUUID().toString(),
        InvoiceHandler.ORDER_CANCELLED,
        "order",
        order.toString(),
        "{\"orderId\":\"" + order + "\",\"reason\":\"changed mind\"}",
        "t",
        0,
        1);
  }
}
