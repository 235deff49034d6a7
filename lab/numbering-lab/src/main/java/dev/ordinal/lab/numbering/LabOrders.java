package dev.ordinal.lab.numbering;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ordinal.billing.InvoiceHandler;
import dev.ordinal.messaging.inbox.Envelope;
import java.math.BigDecimal;
import java.util.UUID;
import org.jooq.DSLContext;

/**
 * Order events as billing receives them, built for the lab and applied with billing's own {@link
 * InvoiceHandler}, so the lab's drafts, cancellations and charges are the real ones.
 */
final class LabOrders {
  static final String TOPIC = "lab.order";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final InvoiceHandler handler;

  LabOrders(InvoiceHandler handler) {
    this.handler = handler;
  }

  /** {@code OrderPlaced} for one order, under {@code messageId}. */
  static Envelope placedMessage(String messageId, UUID orderId, BigDecimal total, String series) {
    ObjectNode n = JSON.createObjectNode();
    n.put("orderId", orderId.toString());
    n.put("customerId", "lab");
    n.put("currency", "EUR");
    n.put("total", total.toPlainString());
    n.put("invoiceSeries", series);
    return new Envelope(
        messageId,
        InvoiceHandler.ORDER_PLACED,
        "order",
        orderId.toString(),
        n.toString(),
        TOPIC,
        0,
        0L);
  }

  static Envelope cancelledMessage(UUID orderId) {
    ObjectNode n = JSON.createObjectNode();
    n.put("orderId", orderId.toString());
    n.put("reason", "cancelled before sending (lab)");
    return new Envelope(
        UUID.randomUUID().toString(),
        InvoiceHandler.ORDER_CANCELLED,
        "order",
        orderId.toString(),
        n.toString(),
        TOPIC,
        0,
        0L);
  }

  /** A draft invoice (and a pending charge) for the order, in {@code tx}. */
  void placed(DSLContext tx, UUID orderId, BigDecimal total, String series) {
    handler.handle(tx, placedMessage(UUID.randomUUID().toString(), orderId, total, series));
  }

  /** The order's draft becomes CANCELLED, without a number, in {@code tx}. */
  void cancelled(DSLContext tx, UUID orderId) {
    handler.handle(tx, cancelledMessage(orderId));
  }
}
