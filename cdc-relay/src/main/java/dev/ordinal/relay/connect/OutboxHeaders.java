package dev.ordinal.relay.connect;

import dev.ordinal.messaging.kafka.HeaderFormat;
import dev.ordinal.messaging.kafka.MessageHeaders;
import java.time.Instant;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The Kafka headers of an outbox event as Debezium's outbox EventRouter hands it over, written the
 * same way by the embedded relay and by {@link OrdinalHeaders} on Kafka Connect: the router's
 * headers in a {@link HeaderFormat} (its {@code id} as the message id), any other header the router
 * placed as it is, then {@code relayed-by} and {@code committed-at}; no header for a null column.
 * Every value is UTF-8 text. It uses nothing but the Kafka and Connect APIs and the two header
 * classes of {@code messaging}, so it runs inside a Connect worker's plugin as it is.
 */
public final class OutboxHeaders {
  /** The header the outbox EventRouter puts the event id in; only outbox events carry it. */
  public static final String ROUTER_ID = "id";

  /**
   * The key of the source offset Debezium's PostgreSQL connector keeps the commit time of the row's
   * transaction in (microseconds since the epoch, PostgreSQL's clock); the router keeps the offset.
   */
  public static final String COMMIT_TIME_OFFSET_KEY = "ts_usec";

  private OutboxHeaders() {}

  /** Whether {@code r} is an outbox event: the router gave it its {@code id} header. */
  public static boolean isOutboxEvent(SourceRecord r) {
    return r.headers().lastWithName(ROUTER_ID) != null;
  }

  /** When the row's transaction committed (epoch ms), or null when the event does not say. */
  public static Long committedAt(SourceRecord r) {
    Object micros = r.sourceOffset() == null ? null : r.sourceOffset().get(COMMIT_TIME_OFFSET_KEY);
    return micros instanceof Number n ? n.longValue() / 1_000 : null;
  }

  /**
   * The headers of {@code r} in {@code format} ({@code source} is CloudEvents' {@code ce_source}),
   * {@code relayedBy} naming the relay that sends it.
   */
  public static RecordHeaders of(
      SourceRecord r, String relayedBy, HeaderFormat format, String source) {
    RecordHeaders headers = new RecordHeaders();
    format.write(
        headers,
        new HeaderFormat.Event(
            text(r, ROUTER_ID),
            text(r, MessageHeaders.EVENT_TYPE),
            text(r, MessageHeaders.AGGREGATE_TYPE),
            r.key() == null ? null : String.valueOf(r.key()),
            text(r, MessageHeaders.OCCURRED_AT),
            text(r, MessageHeaders.TRACEPARENT),
            text(r, MessageHeaders.TRACESTATE)),
        source);
    for (Header h : r.headers()) {
      if (h.value() != null
          && !ROUTER_ID.equals(h.key())
          && !HeaderFormat.NAMES.contains(h.key())) {
        headers.add(h.key(), MessageHeaders.encode(String.valueOf(h.value())));
      }
    }
    headers.add(MessageHeaders.RELAYED_BY, MessageHeaders.encode(relayedBy));
    Long committedAt = committedAt(r);
    if (committedAt != null) {
      headers.add(
          MessageHeaders.COMMITTED_AT,
          MessageHeaders.encode(Instant.ofEpochMilli(committedAt).toString()));
    }
    return headers;
  }

  /** The text of {@code r}'s last header {@code name}; null when absent or null. */
  public static String text(SourceRecord r, String name) {
    Header h = r.headers().lastWithName(name);
    return h == null || h.value() == null ? null : String.valueOf(h.value());
  }
}
