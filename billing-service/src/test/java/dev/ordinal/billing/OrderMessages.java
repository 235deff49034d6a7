package dev.ordinal.billing;

import dev.ordinal.contracts.AggregateType;
import dev.ordinal.contracts.Channel;
import dev.ordinal.contracts.EventCodec;
import dev.ordinal.contracts.EventPayload;
import dev.ordinal.contracts.OrderCancelledV1;
import dev.ordinal.contracts.OrderPlacedV1;
import dev.ordinal.messaging.inbox.Envelope;
import dev.ordinal.messaging.kafka.MessageHeaders;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Order events as order-service writes them (the contract's records, through its codec), as
 * billing's handler receives them or as records on an order topic.
 */
final class OrderMessages {
  static final Instant AT = Instant.parse("2026-03-02T12:00:00Z");

  private OrderMessages() {}

  /** {@code OrderPlaced} of {@code order}: one line, {@code total} EUR, in {@code series}. */
  static OrderPlacedV1 placedEvent(UUID order, String series, Channel channel, String total) {
    BigDecimal amount = new BigDecimal(total);
    return new OrderPlacedV1(
        order,
        "c",
        "EUR",
        channel,
        series,
        amount,
        List.of(new OrderPlacedV1.Line("ITEM", 1, amount)),
        AT);
  }

  /** {@code OrderPlaced} for {@code order}, 20.00 EUR, in {@code series} (null: the default). */
  static Envelope placed(UUID order, String series) {
    return envelope(placedEvent(order, series, Channel.INTERACTIVE, "20.00"), 0);
  }

  /** {@code OrderCancelled} for {@code order}, reason "changed mind". */
  static Envelope cancelled(UUID order) {
    return envelope(new OrderCancelledV1(order, "changed mind", AT), 1);
  }

  /**
   * An interactive {@code OrderPlaced} of {@code order}, 12.50 EUR in {@code series}, on {@code
   * topic} under {@code messageId}, keyed and with headers as the relay publishes it.
   */
  static ProducerRecord<String, String> placedRecord(
      String topic, UUID order, String series, String messageId) {
    return record(topic, placedEvent(order, series, Channel.INTERACTIVE, "12.50"), messageId);
  }

  /** The record of {@code event} on {@code topic} under {@code messageId}. */
  static ProducerRecord<String, String> record(String topic, EventPayload event, String messageId) {
    ProducerRecord<String, String> r =
        new ProducerRecord<>(topic, event.orderId().toString(), EventCodec.toJson(event));
    r.headers().add(MessageHeaders.MESSAGE_ID, MessageHeaders.encode(messageId));
    r.headers().add(MessageHeaders.EVENT_TYPE, MessageHeaders.encode(event.type().wireName()));
    return r;
  }

  private static Envelope envelope(EventPayload event, long offset) {
    return new Envelope(
        UUID.randomUUID().toString(),
        event.type().wireName(),
        AggregateType.ORDER.wireName(),
        event.orderId().toString(),
        EventCodec.toJson(event),
        "t",
        0,
        offset);
  }
}
