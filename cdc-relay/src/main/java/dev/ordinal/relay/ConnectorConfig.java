package dev.ordinal.relay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.HeaderFormat;
import dev.ordinal.relay.connect.OrdinalHeaders;
import dev.ordinal.relay.connect.OutboxHeaders;
import dev.ordinal.relay.internal.DebeziumProperties;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.postgresql.Driver;

/**
 * The Debezium PostgreSQL connector's configuration for Kafka Connect that publishes an outbox as
 * the embedded relay ({@link OutboxRelay}) does: the same slot, publication, outbox and EventRouter
 * ({@link DebeziumProperties#connector}), the same topics, keys, values and headers, with
 * exactly-once delivery (KIP-618: {@code exactly.once.support=required}, {@code
 * transaction.boundary=poll}). The headers are written by Ordinal's transformation {@link
 * OrdinalHeaders} with the embedded relay's code, so they are the same bytes but for {@code
 * relayed-by}, which is {@code kafka-connect/<connector name>}; the worker needs the {@code
 * ordinal-connect-transforms} jar on its {@code plugin.path}.
 *
 * <p>The password is never in it: {@code database.password} is {@value #PASSWORD}, which the
 * worker's {@code EnvVarConfigProvider} (configured as {@code env}) resolves from its environment.
 * Of the JDBC URL only the host, port, database and the TLS parameters ({@link #URL_PARAMETERS})
 * carry over: Debezium on Connect makes its own connections from {@code database.*}.
 */
public final class ConnectorConfig {
  /** The placeholder of the database password, resolved by the worker's {@code env} provider. */
  public static final String PASSWORD = "${env:ORDINAL_DB_PASSWORD}";

  /** The placeholder of the client key's password ({@code sslpassword} in the URL). */
  public static final String SSL_PASSWORD = "${env:ORDINAL_DB_SSLPASSWORD}";

  /** The URL parameters that carry over, each as {@code database.<name>}. */
  public static final List<String> URL_PARAMETERS =
      List.of("sslmode", "sslrootcert", "sslcert", "sslkey", "sslfactory", "tcpKeepAlive");

  private static final String TRANSFORMS = "org.apache.kafka.connect.transforms.";
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private ConnectorConfig() {}

  /** The connector's name: {@code ordinal-relay-<slot>}, the embedded engine's. */
  public static String name(RelayConfig c) {
    return DebeziumProperties.name(c);
  }

  /** What the connector writes in each record's {@code relayed-by} header. */
  public static String relayedBy(RelayConfig c) {
    return "kafka-connect/" + name(c);
  }

  /**
   * The connector's configuration, keys sorted.
   *
   * @throws ConfigurationException when the URL names several servers (Debezium on Connect connects
   *     to one {@code database.hostname} and cannot follow a failover)
   */
  public static Map<String, String> of(RelayConfig c) {
    DatabaseSettings db = c.db();
    if (db.hosts().size() > 1) {
      throw new ConfigurationException(
          DatabaseSettings.URL_SETTING
              + " names several servers ("
              + String.join(",", db.hosts())
              + "), but Debezium on Kafka Connect connects to one database.hostname: name the"
              + " primary's address alone (or one that moves with it).");
    }
    Properties shared = DebeziumProperties.connector(c);
    Map<String, String> m = new TreeMap<>();
    shared.stringPropertyNames().forEach(k -> m.put(k, shared.getProperty(k)));
    m.put("database.password", PASSWORD);
    Properties url = Driver.parseURL(db.jdbcUrl(), new Properties());
    for (String parameter : URL_PARAMETERS) {
      if (url.getProperty(parameter) != null) {
        m.put("database." + parameter, url.getProperty(parameter));
      }
    }
    if (db.sslPassword() != null) {
      m.put("database.sslpassword", SSL_PASSWORD);
    }

    // KIP-618: each poll's records and its source offset in one Kafka transaction
    m.put("exactly.once.support", "required");
    m.put("transaction.boundary", "poll");
    m.put("errors.tolerance", "none");
    // no relay checks the slot before the task streams: Debezium's own check fails the task when
    // the slot is ahead of the stored offset (recreated), rather than skipping what is in between
    m.put("offset.mismatch.strategy", "trust_offset");
    // the embedded relay writes key, value and each header as plain UTF-8 strings
    m.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    m.put(
        "value.converter",
        c.outboxTable().payloadType() == OutboxTable.PayloadType.BYTEA
            ? "org.apache.kafka.connect.converters.ByteArrayConverter"
            : "org.apache.kafka.connect.storage.StringConverter");
    // OrdinalHeaders writes each header as UTF-8 bytes, passed through as they are
    m.put("header.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");

    m.put("transforms", m.get("transforms") + ",outboxOnly,headers");
    // only outbox events (the router's id header) reach Kafka: heartbeats and the heartbeat's WAL
    // messages are dropped, their offsets still committed, as the embedded relay marks them
    m.put("predicates", "outboxEvent");
    m.put("predicates.outboxEvent.type", TRANSFORMS + "predicates.HasHeaderKey");
    m.put("predicates.outboxEvent.name", OutboxHeaders.ROUTER_ID);
    m.put("transforms.outboxOnly.type", TRANSFORMS + "Filter");
    m.put("transforms.outboxOnly.predicate", "outboxEvent");
    m.put("transforms.outboxOnly.negate", "true");
    // the embedded relay's headers, committed-at from the source offset included
    String headers = "transforms.headers.";
    m.put(headers + "type", OrdinalHeaders.class.getName());
    m.put(headers + OrdinalHeaders.RELAYED_BY, relayedBy(c));
    m.put(headers + OrdinalHeaders.HEADERS, c.headerFormat().name().toLowerCase(Locale.ROOT));
    m.put(headers + OrdinalHeaders.SOURCE, HeaderFormat.source(c.outboxSchema()));

    // the topics as the relay makes them (Connect does not cap the replication factor by the
    // brokers present: it must not exceed them)
    m.put("topic.creation.default.partitions", Integer.toString(c.topicPartitions()));
    m.put(
        "topic.creation.default.replication.factor",
        Integer.toString(c.topicDurability().replicationFactor()));
    m.put(
        "topic.creation.default.min.insync.replicas",
        Integer.toString(c.topicDurability().minInsyncReplicas()));
    return m;
  }

  /** {@code {"name": ..., "config": {...}}}, the body of Connect's {@code POST /connectors}. */
  public static String json(RelayConfig c) {
    try {
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("name", name(c));
      body.put("config", of(c));
      return JSON.writeValueAsString(body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
