package dev.ordinal.lab.numbering;

import dev.ordinal.billing.InvoiceHandler;
import dev.ordinal.contracts.AggregateType;
import dev.ordinal.contracts.Channel;
import dev.ordinal.contracts.EventCodec;
import dev.ordinal.contracts.EventPayload;
import dev.ordinal.contracts.OrderCancelledV1;
import dev.ordinal.contracts.OrderPlacedV1;
import dev.ordinal.messaging.inbox.Envelope;
import java.math.BigDecimal;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;

/**
 * Order events as billing receives them, built for the lab and applied with billing's own {@link
 * InvoiceHandler}, so the lab's drafts, cancellations and charges are the real ones.
 */
final class LabOrders {
  static final String TOPIC = "lab.order";

  private final InvoiceHandler handler;

  LabOrders(InvoiceHandler handler) {
    this.handler = handler;
  }

  /** {@code OrderPlaced} for one order, under {@code messageId}. */
  static Envelope placedMessage(String messageId, UUID orderId, BigDecimal total, String series) {
    return message(
        messageId,
        new OrderPlacedV1(
            orderId, "lab", "EUR", Channel.INTERACTIVE, series, total, List.of(), null));
  }

  static Envelope cancelledMessage(UUID orderId) {
    return message(
        UUID.randomUUID().toString(),
        new OrderCancelledV1(orderId, "cancelled before sending (lab)", null));
  }

  private static Envelope message(String messageId, EventPayload event) {
    return new Envelope(
        messageId,
        event.type().wireName(),
        AggregateType.ORDER.wireName(),
        event.orderId().toString(),
        EventCodec.toJson(event),
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
