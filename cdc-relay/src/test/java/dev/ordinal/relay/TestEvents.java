package dev.ordinal.relay;

import dev.ordinal.contracts.AggregateType;
import dev.ordinal.contracts.Channel;
import dev.ordinal.contracts.EventCodec;
import dev.ordinal.contracts.EventPayload;
import dev.ordinal.contracts.OrderCancelledV1;
import dev.ordinal.contracts.OrderPlacedV1;
import dev.ordinal.messaging.outbox.OutboxEvent;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * Outbox events as order-service writes them (the contract's records, through its codec), for tests
 * that need rows to relay. Tests name their orders ({@code o-1}); {@link #id} turns a name into the
 * UUID the contract requires, the same one each time.
 */
final class TestEvents {
  static final Instant AT = Instant.parse("2026-03-02T12:00:00Z");

  private TestEvents() {}

  /** The UUID standing for {@code name}: always the same one. */
  static UUID id(String name) {
    return UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8));
  }

  /** {@code OrderPlaced} of the order named {@code order}: one line, 10.00 EUR. */
  static OrderPlacedV1 placedEvent(String order) {
    BigDecimal total = new BigDecimal("10.00");
    return new OrderPlacedV1(
        id(order),
        "c",
        "EUR",
        Channel.INTERACTIVE,
        null,
        total,
        List.of(new OrderPlacedV1.Line("ITEM", 1, total)),
        AT);
  }

  /** {@link #placedEvent} as the outbox row order-service writes. */
  static OutboxEvent placed(String order) {
    return outbox(placedEvent(order));
  }

  static OutboxEvent cancelled(String order) {
    return outbox(new OrderCancelledV1(id(order), "changed mind", AT));
  }

  static OutboxEvent outbox(EventPayload event) {
    return new OutboxEvent(
        AggregateType.ORDER.wireName(),
        event.orderId().toString(),
        event.type().wireName(),
        EventCodec.toJson(event));
  }
}
