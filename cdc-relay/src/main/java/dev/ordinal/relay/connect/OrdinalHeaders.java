package dev.ordinal.relay.connect;

import dev.ordinal.messaging.kafka.HeaderFormat;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.transforms.Transformation;

/**
 * A Kafka Connect transformation that gives each outbox event, after Debezium's EventRouter, the
 * headers the embedded relay gives it ({@link OutboxHeaders#of}): Ordinal's or CloudEvents' names,
 * {@code relayed-by}, and {@code committed-at} from the source offset's commit time, which no stock
 * transformation can reach; no header for a null column. The headers are bytes (UTF-8 text), so the
 * worker writes them as they are with {@code header.converter=}{@code
 * org.apache.kafka.connect.converters.ByteArrayConverter}. A record without the router's {@code id}
 * header passes unchanged. {@code ./ordinal relay connect-config} configures it; the class ships in
 * the {@code ordinal-connect-transforms} jar, which goes on the worker's {@code plugin.path}.
 */
public final class OrdinalHeaders implements Transformation<SourceRecord> {
  public static final String RELAYED_BY = "relayed.by";
  public static final String HEADERS = "headers";
  public static final String SOURCE = "source";

  private static final ConfigDef CONFIG =
      new ConfigDef()
          .define(
              RELAYED_BY,
              ConfigDef.Type.STRING,
              ConfigDef.NO_DEFAULT_VALUE,
              new ConfigDef.NonEmptyString(),
              ConfigDef.Importance.HIGH,
              "What each record's relayed-by header says")
          .define(
              HEADERS,
              ConfigDef.Type.STRING,
              "ordinal",
              ConfigDef.ValidString.in("ordinal", "cloudevents", "both"),
              ConfigDef.Importance.MEDIUM,
              "Ordinal's headers, CloudEvents' or both")
          .define(
              SOURCE,
              ConfigDef.Type.STRING,
              ConfigDef.NO_DEFAULT_VALUE,
              new ConfigDef.NonEmptyString(),
              ConfigDef.Importance.MEDIUM,
              "CloudEvents' ce_source: /ordinal/<outbox schema>");

  private String relayedBy;
  private HeaderFormat format;
  private String source;

  @Override
  public void configure(Map<String, ?> configs) {
    AbstractConfig c = new AbstractConfig(CONFIG, configs);
    relayedBy = c.getString(RELAYED_BY);
    source = c.getString(SOURCE);
    format = HeaderFormat.valueOf(c.getString(HEADERS).toUpperCase(Locale.ROOT));
  }

  @Override
  public SourceRecord apply(SourceRecord r) {
    if (r == null || !OutboxHeaders.isOutboxEvent(r)) {
      return r;
    }
    ConnectHeaders headers = new ConnectHeaders();
    for (Header h : OutboxHeaders.of(r, relayedBy, format, source)) {
      headers.add(h.key(), h.value(), Schema.BYTES_SCHEMA);
    }
    return r.newRecord(
        r.topic(),
        r.kafkaPartition(),
        r.keySchema(),
        r.key(),
        r.valueSchema(),
        r.value(),
        r.timestamp(),
        headers);
  }

  @Override
  public ConfigDef config() {
    return CONFIG;
  }

  @Override
  public void close() {}
}
