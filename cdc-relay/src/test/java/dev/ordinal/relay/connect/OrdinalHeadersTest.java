package dev.ordinal.relay.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ordinal.messaging.kafka.HeaderFormat;
import dev.ordinal.messaging.kafka.MessageHeaders;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.converters.ByteArrayConverter;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

class OrdinalHeadersTest {
  static final String ID = RoutedEvents.ID;

  @Test
  void anEventGetsTheEmbeddedRelaysHeaderBytesThroughTheByteArrayConverter() {
    for (HeaderFormat format : HeaderFormat.values()) {
      OrdinalHeaders t = transform(format.name().toLowerCase(java.util.Locale.ROOT));
      SourceRecord in = RoutedEvents.orderPlaced();

      SourceRecord out = t.apply(in);

      RecordHeaders relays = OutboxHeaders.of(in, "kafka-connect/c", format, "/ordinal/orders");
      assertThat(written(out)).as(format.name()).isEqualTo(written(relays));
      assertThat(out.key()).isEqualTo(in.key());
      assertThat(out.value()).isEqualTo(in.value());
      assertThat(out.topic()).isEqualTo(in.topic());
      assertThat(out.sourceOffset()).isEqualTo(in.sourceOffset());
    }
    List<String> ordinal = written(transform("ordinal").apply(RoutedEvents.orderPlaced()));
    assertThat(ordinal)
        .containsExactly(
            MessageHeaders.MESSAGE_ID + "=" + ID,
            MessageHeaders.EVENT_TYPE + "=OrderPlaced",
            MessageHeaders.OCCURRED_AT + "=2026-12-01T18:33:20.123456Z",
            MessageHeaders.RELAYED_BY + "=kafka-connect/c",
            MessageHeaders.COMMITTED_AT + "=2026-12-01T18:33:20.123Z");
  }

  @Test
  void aRecordWithoutTheRoutersIdPassesUnchanged() {
    SourceRecord heartbeat =
        new SourceRecord(Map.of(), Map.of(), "__debezium-heartbeat.s", Schema.STRING_SCHEMA, "x");
    assertThat(transform("ordinal").apply(heartbeat)).isSameAs(heartbeat);
  }

  @Test
  void anUnknownFormatOrAMissingRelayedByIsRefused() {
    assertThatThrownBy(() -> transform("xml"))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("headers");
    OrdinalHeaders t = new OrdinalHeaders();
    assertThatThrownBy(() -> t.configure(Map.of(OrdinalHeaders.SOURCE, "/ordinal/orders")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(OrdinalHeaders.RELAYED_BY);
  }

  private static OrdinalHeaders transform(String format) {
    OrdinalHeaders t = new OrdinalHeaders();
    t.configure(
        Map.of(
            OrdinalHeaders.RELAYED_BY, "kafka-connect/c",
            OrdinalHeaders.HEADERS, format,
            OrdinalHeaders.SOURCE, "/ordinal/orders"));
    return t;
  }

  /** The headers as the worker writes them with ByteArrayConverter: {@code name=text}. */
  private static List<String> written(SourceRecord r) {
    ByteArrayConverter converter = new ByteArrayConverter();
    List<String> out = new ArrayList<>();
    for (Header h : r.headers()) {
      byte[] bytes = converter.fromConnectHeader(r.topic(), h.key(), h.schema(), h.value());
      out.add(
          h.key()
              + "="
              + (bytes == null
                  ? null
                  : new String(bytes, java.nio.charset.StandardCharsets.UTF_8)));
    }
    return out;
  }

  private static List<String> written(RecordHeaders headers) {
    List<String> out = new ArrayList<>();
    headers.forEach(
        h ->
            out.add(
                h.key() + "=" + new String(h.value(), java.nio.charset.StandardCharsets.UTF_8)));
    return out;
  }
}
