package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.relay.internal.DebeziumProperties;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class ConnectorConfigTest {
  static final String TLS = "sslmode=verify-full&sslrootcert=/etc/ordinal/root.crt";

  @Test
  void sharesTheEnginesConnectorSettingsWithoutItsOwnAndWithoutAnyPassword() {
    DatabaseSettings db =
        new DatabaseSettings(
            "jdbc:postgresql://db:5433/app?" + TLS + "&sslpassword=keypw&connectTimeout=3",
            "relay",
            "s3cret");
    RelayConfig c = RelayConfig.of(db, "kafka:9092", "orders", "ordinal");
    Map<String, String> m = ConnectorConfig.of(c);
    Properties engine = DebeziumProperties.of(c);

    for (String shared :
        new String[] {
          "connector.class", "slot.name", "publication.name", "table.include.list",
          "snapshot.mode", "slot.drop.on.stop", "errors.max.retries", "topic.prefix",
          "transforms.outbox.type", "transforms.outbox.route.topic.replacement"
        }) {
      assertThat(m.get(shared)).as(shared).isEqualTo(engine.getProperty(shared)).isNotNull();
    }
    assertThat(m)
        .containsEntry("name", "ordinal-relay-ordinal_orders")
        .containsEntry("exactly.once.support", "required")
        .containsEntry("transaction.boundary", "poll")
        .containsEntry("slot.drop.on.stop", "false")
        .containsEntry("database.hostname", "db")
        .containsEntry("database.port", "5433")
        .containsEntry("database.dbname", "app")
        .containsEntry("database.user", "relay")
        .containsEntry("database.sslmode", "verify-full")
        .containsEntry("database.sslrootcert", "/etc/ordinal/root.crt")
        .containsEntry("database.password", "${env:ORDINAL_DB_PASSWORD}")
        .containsEntry("database.sslpassword", "${env:ORDINAL_DB_SSLPASSWORD}")
        .containsEntry("transforms", "outbox,outboxOnly,headers")
        .containsEntry("transforms.headers.type", "dev.ordinal.relay.connect.OrdinalHeaders")
        .containsEntry(
            "transforms.headers.relayed.by", "kafka-connect/ordinal-relay-ordinal_orders")
        .containsEntry("transforms.headers.headers", "ordinal")
        .containsEntry("transforms.headers.source", "/ordinal/orders")
        .containsEntry("header.converter", "org.apache.kafka.connect.converters.ByteArrayConverter")
        .doesNotContainKeys(
            "offset.storage",
            "offset.flush.interval.ms",
            "database.connection.factory.class",
            "database.ordinal.url",
            "database.connectTimeout",
            "internal.log.position.check.enable");
    assertThat(m.get("transforms.outbox.table.fields.additional.placement"))
        .isEqualTo(
            "event_type:header:event-type,aggregate_type:header:aggregate-type,"
                + "occurred_at:header:occurred-at,traceparent:header:traceparent,"
                + "tracestate:header:tracestate");
    assertThat(m).containsEntry("transforms.outbox.table.field.additional.missing", "ignore");
    assertThat(ConnectorConfig.json(c))
        .startsWith("{\n  \"name\" : \"ordinal-relay-ordinal_orders\",\n  \"config\" : {")
        .doesNotContain("s3cret")
        .doesNotContain("keypw");
  }

  @Test
  void aTeamsTableGetsATracestateHeaderOnlyFromAColumnItNames() {
    DatabaseSettings db = new DatabaseSettings("jdbc:postgresql://db:5432/app", "relay", "pw");
    RelayConfig without =
        RelayConfig.builder(db, "kafka:9092", "orders", "ordinal")
            .outbox(TeamOutbox.TABLE, null)
            .build();
    assertThat(DebeziumProperties.connector(without))
        .containsEntry(
            "transforms.outbox.table.fields.additional.placement",
            "kind:header:event-type,entity_type:header:aggregate-type,"
                + "created_at:header:occurred-at")
        .doesNotContainKey("transforms.outbox.table.field.additional.missing");
    RelayConfig named =
        RelayConfig.builder(db, "kafka:9092", "orders", "ordinal")
            .outbox(
                OutboxTable.of(
                    "events",
                    java.util.List.of("traceparent=trace_parent", "tracestate=trace_state"),
                    OutboxTable.PayloadType.JSONB),
                null)
            .build();
    assertThat(
            DebeziumProperties.connector(named)
                .getProperty("transforms.outbox.table.fields.additional.placement"))
        .endsWith(",trace_parent:header:traceparent,trace_state:header:tracestate");
  }

  @Test
  void aUrlWithSeveralServersIsRefusedInOneSentence() {
    DatabaseSettings db =
        new DatabaseSettings("jdbc:postgresql://pg-a:5432,pg-b:5432/app", "relay", "s3cret");
    RelayConfig c = RelayConfig.of(db, "kafka:9092", "orders", "ordinal");
    assertThatThrownBy(() -> ConnectorConfig.of(c))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "ORDINAL_DB_URL names several servers (pg-a:5432,pg-b:5432), but Debezium on Kafka"
                + " Connect connects to one database.hostname: name the primary's address alone"
                + " (or one that moves with it).");
  }
}
