package dev.ordinal.messaging.outbox;

import java.util.Objects;

/**
 * An event to publish: it becomes one outbox row, then one Kafka record on topic {@code
 * <prefix>.<aggregateType>} with key {@code aggregateId}.
 *
 * @param payload the event as a JSON document
 * @param traceparent W3C trace context, or null
 * @param tracestate W3C trace state beside {@code traceparent}, or null: then {@link Outbox} writes
 *     the current span's when {@code traceparent} is that span's own
 */
public record OutboxEvent(
    String aggregateType,
    String aggregateId,
    String eventType,
    String payload,
    String traceparent,
    String tracestate) {
  public OutboxEvent {
    Objects.requireNonNull(aggregateType, "aggregateType");
    Objects.requireNonNull(aggregateId, "aggregateId");
    Objects.requireNonNull(eventType, "eventType");
    Objects.requireNonNull(payload, "payload");
    if (!aggregateType.matches("[a-z][a-z0-9_-]{0,63}")) {
      throw new IllegalArgumentException(
          "aggregateType must be lower-case letters, digits, '-' or '_' (it names a topic): "
              + aggregateType);
    }
  }

  public OutboxEvent(String aggregateType, String aggregateId, String eventType, String payload) {
    this(aggregateType, aggregateId, eventType, payload, null, null);
  }

  /** An event whose trace state, if any, is the current span's ({@link Outbox} looks it up). */
  public OutboxEvent(
      String aggregateType,
      String aggregateId,
      String eventType,
      String payload,
      String traceparent) {
    this(aggregateType, aggregateId, eventType, payload, traceparent, null);
  }
}
