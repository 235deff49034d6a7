package dev.ordinal.messaging.kafka;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * The Kafka headers of the message contract. Values are plain UTF-8 strings (not JSON-quoted). The
 * record key is the aggregate id and the value the JSON payload.
 */
public final class MessageHeaders {
  /** The outbox row id: made once when the event is written, the same on every re-send. */
  public static final String MESSAGE_ID = "message-id";

  public static final String EVENT_TYPE = "event-type";
  public static final String AGGREGATE_TYPE = "aggregate-type";

  /** ISO-8601 instant at which the event was written to the outbox. */
  public static final String OCCURRED_AT = "occurred-at";

  /**
   * ISO-8601 instant at which the transaction that wrote the event committed, as PostgreSQL
   * recorded it (set by the CDC relay; the polling relay cannot know it).
   */
  public static final String COMMITTED_AT = "committed-at";

  /** W3C trace context of the writing request, when there was one. */
  public static final String TRACEPARENT = "traceparent";

  /** W3C trace state beside {@link #TRACEPARENT}, when the writing request's context had one. */
  public static final String TRACESTATE = "tracestate";

  /**
   * The relay instance that sent this copy (its {@code --instance-id}): two copies of one message
   * id may differ in it, after a takeover.
   */
  public static final String RELAYED_BY = "relayed-by";

  /** On a dead letter: why it could not be applied (one line). */
  public static final String DLQ_ERROR = "dlq-error";

  /** On a dead letter: the consumer (inbox name) that gave up on it. */
  public static final String DLQ_CONSUMER = "dlq-consumer";

  /** On a dead letter: where it was read from. */
  public static final String DLQ_TOPIC = "dlq-original-topic";

  public static final String DLQ_PARTITION = "dlq-original-partition";
  public static final String DLQ_OFFSET = "dlq-original-offset";

  /** On a dead letter: when it was dead-lettered, ISO-8601. */
  public static final String DLQ_AT = "dlq-at";

  private MessageHeaders() {}

  /** The last value of header {@code name}, if present and not null. */
  public static Optional<String> get(Headers headers, String name) {
    Header h = headers.lastHeader(name);
    if (h == null || h.value() == null) {
      return Optional.empty();
    }
    return Optional.of(new String(h.value(), StandardCharsets.UTF_8));
  }

  public static byte[] encode(String value) {
    return value.getBytes(StandardCharsets.UTF_8);
  }
}
