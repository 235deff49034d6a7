package dev.ordinal.relay.connect;

import dev.ordinal.contracts.EventType;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;

/** Outbox events as Debezium's outbox EventRouter hands them over, for the tests. */
public final class RoutedEvents {
  public static final String ID = "7f1c0f4e-0000-4000-8000-000000000001";

  private RoutedEvents() {}

  /**
   * An OrderPlaced event of order {@code order-1} on {@code p.order}, with a null traceparent,
   * committed at 2026-12-01T18:33:20.123456Z.
   */
  public static SourceRecord orderPlaced() {
    ConnectHeaders headers = new ConnectHeaders();
    headers.addString("id", ID);
    headers.addString("event-type", EventType.ORDER_PLACED.wireName());
    headers.addString("occurred-at", "2026-12-01T18:33:20.123456Z");
    headers.add("traceparent", null, Schema.OPTIONAL_STRING_SCHEMA);
    return new SourceRecord(
        Map.of(),
        Map.of(OutboxHeaders.COMMIT_TIME_OFFSET_KEY, 1_796_150_000_123_456L),
        "p.order",
        null,
        Schema.STRING_SCHEMA,
        "order-1",
        Schema.STRING_SCHEMA,
        "{\"a\":1}",
        null,
        headers);
  }
}
