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
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
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
  static final OutboxTable EVENTS = TeamOutbox.TABLE;

  @Test
  void rowsOfATeamsOwnTableAreRelayedAsOrdinalsRecords(TestNamespace ns) throws Exception {
    DatabaseSettings db = RelayFixture.ownerSettings(ns);
    DSLContext sql = DSL.using(ns.dataSource(), SQLDialect.POSTGRES);
    TeamOutbox table = new TeamOutbox(sql, ns.schema());
    RelayConfig config =
        RelayConfig.builder(db, ns.stack().kafkaBootstrap(), ns.schema(), ns.topicPrefix())
            .slot(ns.name() + "_own", ns.name() + "_own", true)
            .outbox(EVENTS, null)
            .build();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ids.add(table.insert("parcel-" + i, "{\"n\":" + i + "}"));
    }
    String topic = ns.topic("parcel");
    try (OutboxRelay relay = new OutboxRelay(config, new SimpleMeterRegistry()).start()) {
      relay.awaitStreaming(Duration.ofSeconds(60));
      for (int i = 5; i < 10; i++) {
        ids.add(table.insert("parcel-" + i, "{\"n\":" + i + "}"));
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
            .outbox(OutboxTable.of(EVENTS.table(), EVENTS.renames(), PayloadType.JSONB), null)
            .build();
    assertThatThrownBy(() -> new OutboxRelay(wrongType, new SimpleMeterRegistry()).start())
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining(
            "Column body of " + ns.schema() + ".parcel_events is text, not jsonb");
  }

  /**
   * A relay upgraded before the service that owns its outbox: Ordinal's outbox as migrations V1 to
   * V4 left it (no tracestate) is refused with the sentence that says what to do; tracestate=none
   * reads it as it was.
   */
  @Test
  void ordinalsOutboxFromBeforeTracestateIsRefusedSayingWhatToDo(TestNamespace ns) {
    String schema = ns.schema("before_v5");
    dev.ordinal.messaging.db.Migrations.applyUpTo(
        ns.dataSource(),
        schema,
        dev.ordinal.messaging.db.Migrations.OUTBOX,
        "flyway_history_outbox",
        "4");
    DSLContext dsl = DSL.using(ns.dataSource(), SQLDialect.POSTGRES);
    assertThatThrownBy(() -> OutboxTable.DEFAULT.check(dsl, schema))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            schema
                + ".outbox has no column tracestate: it is Ordinal's outbox from before"
                + " messaging's migration V5; start the upgraded service that owns "
                + schema
                + " once (it migrates its outbox) before this relay, or set --outbox-column"
                + " tracestate=none.");
    OutboxTable.of("outbox", List.of("tracestate=none"), PayloadType.JSONB).check(dsl, schema);
  }
}
