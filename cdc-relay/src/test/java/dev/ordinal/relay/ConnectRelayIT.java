package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.messaging.inbox.InboxConsumer;
import dev.ordinal.messaging.inbox.InboxConsumerConfig;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.messaging.outbox.OutboxEvent;
import dev.ordinal.testkit.ConnectWorker;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The outbox on Kafka Connect with the configuration {@link ConnectorConfig} prints: a distributed
 * worker in a JVM of its own, exactly-once source support, the connector created over the REST API.
 * 10,000 events are written (10 of them with a traceparent and a tracestate) while the worker is
 * killed with SIGKILL mid-stream and a new one takes over: read with {@code read_committed}, the
 * topic holds each of the 10,000 exactly once. Each record equals the embedded relay's for the same
 * row (an {@link OutboxRelay} on a second slot and publication of the same outbox, under a second
 * topic prefix) in topic name, partition, key, value and the bytes of every header ({@code
 * committed-at} and no header for a null column included, by Ordinal's transformation), except
 * {@code relayed-by}, which names the relay; and Ordinal's {@link InboxConsumer} applies every
 * record of the Connect topic once. (Billing on the Connect topic: {@code ConnectBillingIT}.)
 */
@ExtendWith(OrdinalStackExtension.class)
class ConnectRelayIT {
  static final int EVENTS = 10_000;
  static final int TRACED = 10;
  static final double RATE = 2_000;
  static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  static final String TRACESTATE = "ordinal=t1,congo=x";

  @Test
  void connectPublishesEachEventOnceAcrossAKilledWorkerAsTheEmbeddedRelayDoes(TestNamespace ns)
      throws Exception {
    try (RelayFixture fx = RelayFixture.create(ns)) {
      RelayConfig config =
          fx.config("connect").topicDurability(new Topics.Durability(1, 1)).build();
      String connector = ConnectorConfig.name(config);
      String json = ConnectorConfig.json(config);
      assertThat(json).doesNotContain(fx.password);
      String embeddedPrefix = ns.topicPrefix() + "-embedded";

      try (OutboxRelay embedded =
              new OutboxRelay(
                      RelayConfig.builder(
                              fx.ownerDb, ns.stack().kafkaBootstrap(), ns.schema(), embeddedPrefix)
                          .slot(ns.name() + "_eslot", ns.name() + "_epub", true)
                          .instanceId("embedded")
                          .build(),
                      new SimpleMeterRegistry())
                  .start();
          TopicReader reader = new TopicReader(ns.stack().kafkaBootstrap(), fx.topic());
          TopicReader embeddedReader =
              new TopicReader(ns.stack().kafkaBootstrap(), embeddedPrefix + ".order")) {
        embedded.awaitStreaming(Duration.ofSeconds(60));
        List<ConsumerRecord<String, String>> records;
        Set<String> expected = new HashSet<>();
        int atKill;
        long killedAt;
        long tookOverAt;
        try (ConnectWorker first = ConnectWorker.start(ns, 1, fx.password)) {
          assertThat(first.create(json)).as("POST /connectors").isEqualTo(201);
          first.awaitRunning(connector);
          fx.awaitSlot(true);
          expected.addAll(writeTraced(fx));
          CompletableFuture<OutboxWriters.Result> writing =
              OutboxWriters.inBackground(fx.owner, 4, EVENTS - TRACED, 9, RATE);
          atKill = reader.readUntil(r -> r.size() >= EVENTS / 4, Duration.ofSeconds(60)).size();
          first.kill();
          killedAt = System.nanoTime();
          // mid-stream: the writers go on while no worker runs
          assertThat(atKill)
              .as("records on the topic at the kill")
              .isBetween(EVENTS / 4, EVENTS - 1);

          try (ConnectWorker second = ConnectWorker.start(ns, 2, fx.password)) {
            second.awaitRunning(connector);
            tookOverAt = System.nanoTime();
            OutboxWriters.Result written = writing.get();
            assertThat(written.committed()).hasSize(EVENTS - TRACED);
            expected.addAll(OutboxWriters.messageIds(written));
            records = reader.readUntilAll(expected, Duration.ofSeconds(120));
            Set<String> seen = new HashSet<>();
            records.forEach(r -> seen.add(TopicReader.messageId(r)));
            long duplicates = records.size() - seen.size();
            long lost = expected.stream().filter(id -> !seen.contains(id)).count();
            System.out.printf(
                "connect relay: %d events, %d records read_committed, %d distinct, %d duplicates,"
                    + " %d lost; killed at %d records, the new worker's task RUNNING %d ms after"
                    + " the kill%n",
                EVENTS,
                records.size(),
                seen.size(),
                duplicates,
                lost,
                atKill,
                (tookOverAt - killedAt) / 1_000_000);
            assertThat(expected).hasSize(EVENTS);
            assertThat(seen).as("nothing lost, nothing extra").isEqualTo(expected);
            assertThat(seen).doesNotContainAnyElementsOf(written.rolledBack());
            assertThat(duplicates).as("duplicates").isZero();
            assertThat(records.size()).as("records").isEqualTo(EVENTS);
          }
        }

        try (Admin admin =
            Admin.create(
                Map.<String, Object>of(
                    AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ns.stack().kafkaBootstrap()))) {
          // heartbeats (__debezium-heartbeat.<slot>) and their WAL messages (<slot>.message) are
          // dropped as the embedded relay drops them: no topic of the slot's name
          assertThat(admin.listTopics().names().get())
              .as("topics")
              .contains(fx.topic())
              .noneMatch(t -> t.contains(fx.slot()));
        }
        List<ConsumerRecord<String, String>> relayed =
            embeddedReader.readUntilAll(expected, Duration.ofSeconds(120));
        assertSameAsTheEmbeddedRelays(records, relayed, config, ns, embeddedPrefix);
      }
      assertInboxAppliesEachOnce(ns, fx);
    }
  }

  /** Events with a traceparent and a tracestate, which both relays write as headers. */
  private static List<String> writeTraced(RelayFixture fx) {
    Outbox outbox = new Outbox(Clock.systemUTC());
    List<String> ids = new ArrayList<>();
    fx.owner.transaction(
        c -> {
          for (int i = 0; i < TRACED; i++) {
            ids.add(
                outbox
                    .append(
                        c.dsl(),
                        new OutboxEvent(
                            "order",
                            "traced-" + i,
                            "Traced",
                            "{\"i\":" + i + "}",
                            TRACEPARENT,
                            TRACESTATE))
                    .toString());
          }
        });
    return ids;
  }

  private static void assertSameAsTheEmbeddedRelays(
      List<ConsumerRecord<String, String>> records,
      List<ConsumerRecord<String, String>> relayed,
      RelayConfig config,
      TestNamespace ns,
      String embeddedPrefix) {
    Map<String, ConsumerRecord<String, String>> byId = new HashMap<>();
    relayed.forEach(r -> byId.putIfAbsent(TopicReader.messageId(r), r));
    int traced = 0;
    int withState = 0;
    for (ConsumerRecord<String, String> r : records) {
      String id = TopicReader.messageId(r);
      ConsumerRecord<String, String> e = byId.get(id);
      assertThat(e).as("the embedded relay's record of %s", id).isNotNull();
      assertThat(r.topic()).isEqualTo(ns.topicPrefix() + ".order");
      assertThat(e.topic()).isEqualTo(embeddedPrefix + ".order");
      assertThat(r.partition()).as("partition of %s", id).isEqualTo(e.partition());
      assertThat(r.key()).as("key of %s", id).isEqualTo(e.key());
      assertThat(r.value()).as("value of %s", id).isEqualTo(e.value());
      assertThat(headers(r)).as("headers of %s", id).isEqualTo(headers(e));
      assertThat(MessageHeaders.get(r.headers(), MessageHeaders.RELAYED_BY))
          .contains(ConnectorConfig.relayedBy(config));
      assertThat(r.headers().lastHeader(MessageHeaders.COMMITTED_AT)).isNotNull();
      if (MessageHeaders.get(r.headers(), MessageHeaders.TRACEPARENT).isPresent()) {
        traced++;
      }
      if (MessageHeaders.get(r.headers(), MessageHeaders.TRACESTATE)
          .equals(java.util.Optional.of(TRACESTATE))) {
        withState++;
      }
    }
    assertThat(traced).as("records with a traceparent").isEqualTo(TRACED);
    assertThat(withState).as("records with the tracestate").isEqualTo(TRACED);
  }

  /**
   * Each header but {@code relayed-by} as {@code name=bytes}, in order, the bytes as ISO-8859-1
   * (one char per byte, so equal strings are equal bytes).
   */
  private static List<String> headers(ConsumerRecord<String, String> r) {
    List<String> out = new ArrayList<>();
    for (Header h : r.headers()) {
      if (h.key().equals(MessageHeaders.RELAYED_BY)) {
        continue;
      }
      out.add(
          h.key()
              + "="
              + (h.value() == null ? null : new String(h.value(), StandardCharsets.ISO_8859_1)));
    }
    return out;
  }

  /** Ordinal's inbox on a schema of its own applies each of the Connect topic's records once. */
  private static void assertInboxAppliesEachOnce(TestNamespace ns, RelayFixture fx)
      throws Exception {
    String schema = ns.schema("inbox");
    DatabaseSettings db = fx.ownerDb.withSchema(schema);
    try (var pool = db.pool("inbox-" + ns.name(), 4)) {
      Migrations.applyInbox(pool, schema);
      var dsl = DSL.using(pool, org.jooq.SQLDialect.POSTGRES);
      InboxConsumerConfig inboxConfig =
          InboxConsumerConfig.builder(
                  "connect-test",
                  ns.group("inbox"),
                  List.of(fx.topic()),
                  ns.stack().kafkaBootstrap())
              .concurrency(4)
              .build();
      try (InboxConsumer inbox =
          new InboxConsumer(
                  inboxConfig,
                  dsl,
                  (tx, message) -> {},
                  new SimpleMeterRegistry(),
                  Clock.systemUTC())
              .start()) {
        await("inbox applied " + EVENTS)
            .atMost(Duration.ofSeconds(120))
            .until(() -> inbox.applied() >= EVENTS);
        System.out.printf(
            "connect relay: inbox applied %d, duplicates %d, dead-lettered %d%n",
            inbox.applied(), inbox.duplicates(), inbox.deadLettered());
        assertThat(inbox.applied()).isEqualTo(EVENTS);
        assertThat(inbox.duplicates()).isZero();
        assertThat(inbox.deadLettered()).isZero();
      }
      assertThat(dsl.fetchCount(DSL.table(DSL.name(schema, "inbox")))).isEqualTo(EVENTS);
    }
  }
}
