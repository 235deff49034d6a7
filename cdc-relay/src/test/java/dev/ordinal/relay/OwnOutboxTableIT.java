package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.relay.OutboxTable.PayloadType;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jooq.DSLContext;
import org.jooq.Name;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The relay pointed at a table of a team's own ({@code --outbox-table}, {@code --outbox-column},
 * {@code --payload-type}): other names, a text payload, no traceparent column. Rows written before
 * its first start (the first-stream read) and after (the stream) reach Kafka as Ordinal's records:
 * the id as message id, the aggregate id as key, the payload's text as value.
 */
@ExtendWith(OrdinalStackExtension.class)
class OwnOutboxTableIT {
  static final OutboxTable EVENTS =
      OutboxTable.of(
          "events",
          List.of(
              "id=event_id",
              "aggregate_type=entity_type",
              "aggregate_id=entity_id",
              "event_type=kind",
              "payload=body",
              "occurred_at=created_at",
              "traceparent=none"),
          PayloadType.TEXT);

  @Test
  void rowsOfATeamsOwnTableAreRelayedAsOrdinalsRecords(TestNamespace ns) throws Exception {
    DatabaseSettings db = RelayFixture.ownerSettings(ns);
    DSLContext sql = DSL.using(ns.dataSource(), SQLDialect.POSTGRES);
    Name table = DSL.name(ns.schema(), "events");
    sql.createTable(table)
        .column("event_id", SQLDataType.UUID.notNull())
        .column("entity_type", SQLDataType.VARCHAR(64).notNull())
        .column("entity_id", SQLDataType.VARCHAR(64).notNull())
        .column("kind", SQLDataType.VARCHAR(64).notNull())
        .column("body", SQLDataType.CLOB.notNull())
        .column("created_at", SQLDataType.TIMESTAMPWITHTIMEZONE.notNull())
        .constraints(DSL.primaryKey("event_id"))
        .execute();
    RelayConfig config =
        RelayConfig.builder(db, ns.stack().kafkaBootstrap(), ns.schema(), ns.topicPrefix())
            .slot(ns.name() + "_own", ns.name() + "_own", true)
            .outboxTable(EVENTS)
            .build();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ids.add(insert(sql, table, "parcel-" + i, "{\"n\":" + i + "}"));
    }
    String topic = ns.topic("parcel");
    try (OutboxRelay relay = new OutboxRelay(config, new SimpleMeterRegistry()).start()) {
      relay.awaitStreaming(Duration.ofSeconds(60));
      for (int i = 5; i < 10; i++) {
        ids.add(insert(sql, table, "parcel-" + i, "{\"n\":" + i + "}"));
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> relay.relayed() >= 5);
    }
    List<ConsumerRecord<String, String>> records;
    try (TopicReader reader = new TopicReader(ns.stack().kafkaBootstrap(), topic)) {
      records = reader.readUntilAll(ids, Duration.ofSeconds(30));
    }
    assertThat(records.stream().map(TopicReader::messageId).distinct())
        .containsExactlyInAnyOrderElementsOf(ids);
    for (ConsumerRecord<String, String> r : records) {
      int n = Integer.parseInt(r.key().substring("parcel-".length()));
      assertThat(r.value()).isEqualTo("{\"n\":" + n + "}");
      assertThat(MessageHeaders.get(r.headers(), MessageHeaders.EVENT_TYPE)).hasValue("Shipped");
      assertThat(MessageHeaders.get(r.headers(), MessageHeaders.AGGREGATE_TYPE)).hasValue("parcel");
      assertThat(MessageHeaders.get(r.headers(), MessageHeaders.OCCURRED_AT)).isPresent();
      assertThat(r.headers().lastHeader(MessageHeaders.TRACEPARENT)).isNull();
    }

    // a payload type that is not the column's is refused in one sentence, before anything starts
    RelayConfig wrongType =
        RelayConfig.builder(db, ns.stack().kafkaBootstrap(), ns.schema(), ns.topicPrefix())
            .slot(ns.name() + "_own", ns.name() + "_own", true)
            .outboxTable(OutboxTable.of("events", columnsOf(EVENTS), PayloadType.JSONB))
            .build();
    assertThatThrownBy(() -> new OutboxRelay(wrongType, new SimpleMeterRegistry()).start())
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("Column body of " + ns.schema() + ".events is text, not jsonb");
  }

  private static List<String> columnsOf(OutboxTable t) {
    List<String> renames = new ArrayList<>();
    t.columns().forEach((c, column) -> renames.add(c.ordinalName() + "=" + column));
    renames.add("traceparent=none");
    return renames;
  }

  private static String insert(DSLContext sql, Name table, String entity, String body) {
    UUID id = UUID.randomUUID();
    sql.insertInto(DSL.table(table))
        .set(DSL.field(DSL.name("event_id")), id)
        .set(DSL.field(DSL.name("entity_type")), "parcel")
        .set(DSL.field(DSL.name("entity_id")), entity)
        .set(DSL.field(DSL.name("kind")), "Shipped")
        .set(DSL.field(DSL.name("body")), body)
        .set(DSL.field(DSL.name("created_at")), DSL.currentOffsetDateTime())
        .execute();
    return id.toString();
  }
}
