package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.messaging.outbox.OutboxEvent;
import dev.ordinal.relay.internal.SlotPosition;
import dev.ordinal.runtime.LoopHealth;
import dev.ordinal.runtime.LoopState;
import dev.ordinal.runtime.Supervisor;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.ReplicatedPostgres;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.awaitility.Awaitility;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A PostgreSQL 17 primary and a streaming standby (a cold copy of the primary's data directory),
 * the relay's slot a failover slot synchronised to the standby. Under load the primary crashes and
 * the standby is promoted; the relay, given only the multi-host URL, follows to the promoted server
 * and publishes every outbox row of the surviving timeline, and nothing that timeline lost. Its
 * twin: with {@code synchronized_standby_slots} unset, nothing holds back what the relay is sent
 * until the standby has it, so the relay refuses to publish.
 */
@ExtendWith(OrdinalStackExtension.class)
class FailoverIT {

  @Test
  void theRelayFollowsAFailoverAndEveryRowOfTheSurvivingTimelineIsOnKafka(
      TestNamespace ns, @TempDir Path dir) throws Exception {
    String schema = "failover";
    String slot = "failover_slot";
    try (ReplicatedPostgres pg = ReplicatedPostgres.start(dir)) {
      DatabaseSettings db =
          new DatabaseSettings(pg.multiHostUrl(), pg.user(), pg.password()).forPrimary();
      RelayConfig config =
          RelayConfig.builder(
                  db.withSchema(schema), ns.stack().kafkaBootstrap(), schema, ns.topicPrefix())
              .slot(slot, "failover_pub", false)
              .instanceId("failover")
              .heartbeatInterval(Duration.ofSeconds(1))
              .leaderRetryInterval(Duration.ofMillis(500))
              .build();
      String topic = ns.topicPrefix() + ".order";
      try (HikariDataSource pool =
              db.withSchema(schema).pool("failover-writers", 4, Duration.ofSeconds(5));
          TopicReader reader = new TopicReader(ns.stack().kafkaBootstrap(), topic)) {
        Migrations.applyOutbox(pool, schema);
        DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
        // the slot, made as 'relay reset-position' makes it: a failover slot on PostgreSQL 17
        assertThat(new RelayRecovery(config).resetPosition(true).slotCreated()).isTrue();
        pg.awaitSlotOnStandby(slot, Duration.ofSeconds(30));

        try (OutboxRelay relay = new OutboxRelay(config, new SimpleMeterRegistry()).start()) {
          relay.awaitStreaming(Duration.ofSeconds(60));
          ResilientWriter writer = new ResilientWriter(dsl, 200);
          Thread writing = new Thread(writer, "failover-writer");
          writing.start();
          try {
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> relay.relayed() >= 300);
            pg.awaitSlotSynced(slot, Duration.ofSeconds(30));

            long relayedBefore = relay.relayed();
            pg.crashPrimary();
            long crashedAt = System.nanoTime();
            pg.promoteStandby();
            writer.marked.set(true);
            // the relay streams from the promoted server: events written there reach Kafka
            Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .until(() -> writer.committedSinceMark.get() >= 200);
            Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .until(() -> relay.relayed() > relayedBefore + 150);
            Duration resumed = Duration.ofNanos(System.nanoTime() - crashedAt);
            writer.stop.set(true);
            writing.join(30_000);

            Set<String> surviving =
                dsl.select(DSL.field(DSL.name("id"), String.class))
                    .from(DSL.table(DSL.name("outbox")))
                    .fetchSet(DSL.field(DSL.name("id"), String.class));
            List<ConsumerRecord<String, String>> records =
                reader.readUntilAll(surviving, Duration.ofSeconds(90));
            Set<String> onKafka =
                records.stream().map(TopicReader::messageId).collect(Collectors.toSet());
            Set<String> lostByPostgres = new HashSet<>(writer.committed);
            lostByPostgres.removeAll(surviving);
            Set<String> ghosts = new HashSet<>(onKafka);
            ghosts.removeAll(surviving);
            System.out.printf(
                "failover: the relay published from the promoted server %d ms after the crash;"
                    + " %d rows on the surviving timeline, %d records on Kafka (%d duplicates),"
                    + " %d commits acknowledged by the old primary and lost with it (asynchronous"
                    + " standby), %d on Kafka but not on the surviving timeline, %d writes"
                    + " failed during the failover%n",
                resumed.toMillis(),
                surviving.size(),
                records.size(),
                records.size() - onKafka.size(),
                lostByPostgres.size(),
                ghosts.size(),
                writer.failed.get());

            Set<String> missing = new HashSet<>(surviving);
            missing.removeAll(onKafka);
            if (!missing.isEmpty()) {
              System.out.println(
                  "failover: missing from Kafka: "
                      + dsl.select(
                              DSL.field(DSL.name("id")),
                              DSL.field(DSL.name("occurred_at")),
                              DSL.field(DSL.name("payload")))
                          .from(DSL.table(DSL.name("outbox")))
                          .where(DSL.field("id::text", String.class).in(missing))
                          .fetch()
                      + " relayed "
                      + relay.relayed()
                      + " crash at "
                      + java.time.Instant.now().minusNanos(System.nanoTime() - crashedAt));
            }
            assertThat(onKafka)
                .as("every outbox row of the surviving timeline is on Kafka")
                .containsAll(surviving);
            assertThat(ghosts)
                .as(
                    "nothing the surviving timeline lost was published (synchronized_standby_slots)")
                .isEmpty();
            assertThat(surviving).containsAll(writer.committedSinceMarkIds);
            assertThat(relay.isLeader()).isTrue();
            // the promoted server's slot and the stored position agree: a restart streams
            SlotPosition.check(config);
          } finally {
            writer.stop.set(true);
            writing.join(30_000);
          }
        }
      }
    }
  }

  /**
   * The negative twin: the primary's {@code synchronized_standby_slots} unset and the standby's
   * replay held back, so the standby lacks the rows written: published, they would be ghosts after
   * a failover. The relay refuses (its loop backs off with the sentence, the gauge shows 1, nothing
   * reaches the topic); once the setting names the standby's slot it publishes every row; unset
   * again while it streams, it stops; with the override it publishes anyway.
   */
  @Test
  void withTheStandbyNotWaitedForTheRelayRefusesToPublish(TestNamespace ns, @TempDir Path dir)
      throws Exception {
    String schema = "unguarded";
    try (ReplicatedPostgres pg = ReplicatedPostgres.start(dir)) {
      pg.standbySlotsOnPrimary("");
      DatabaseSettings db =
          new DatabaseSettings(pg.multiHostUrl(), pg.user(), pg.password()).forPrimary();
      RelayConfig.Builder config =
          RelayConfig.builder(
                  db.withSchema(schema), ns.stack().kafkaBootstrap(), schema, ns.topicPrefix())
              .slot("unguarded_slot", "unguarded_pub", false)
              .instanceId("unguarded")
              .heartbeatInterval(Duration.ofSeconds(1))
              .leaderRetryInterval(Duration.ofMillis(500));
      String loop = "relay-" + schema;
      try (HikariDataSource pool =
              db.withSchema(schema).pool("unguarded-writers", 2, Duration.ofSeconds(5));
          TopicReader reader =
              new TopicReader(ns.stack().kafkaBootstrap(), ns.topicPrefix() + ".ghost");
          Connection standby =
              DriverManager.getConnection(pg.standbyUrl(), pg.user(), pg.password())) {
        Migrations.applyOutbox(pool, schema);
        DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
        pg.holdStandbyReplay(true);
        Set<String> first = append(dsl, 20);
        assertThat(
                DSL.using(standby)
                    .fetchCount(
                        DSL.table(DSL.name(schema, "outbox")),
                        DSL.field("id::text", String.class).in(first)))
            .as("the standby lacks the rows: published, they would be ghosts after a failover")
            .isZero();

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Supervisor supervisor = new Supervisor("relay", registry);
            OutboxRelay relay = new OutboxRelay(config.build(), registry)) {
          relay.start(supervisor);
          LoopHealth refused = awaitRefusal(supervisor, loop, 0);
          System.out.println("failover twin: the relay refuses: " + refused.lastError());
          assertThat(refused.lastError())
              .contains("slot " + ReplicatedPostgres.STANDBY_SLOT)
              .contains("synchronized_standby_slots")
              .contains("--allow-unguarded-standbys");
          assertThat(unguarded(registry)).isEqualTo(1.0);
          assertThat(relay.relayed()).isZero();
          assertThat(reader.readUntil(r -> false, Duration.ofSeconds(1))).isEmpty();

          // the standby waited for: every row reaches Kafka (its replay still held: received and
          // flushed is what logical decoding waits for)
          pg.standbySlotsOnPrimary(ReplicatedPostgres.STANDBY_SLOT);
          assertThat(ids(reader.readUntilAll(first, Duration.ofSeconds(60)))).containsAll(first);
          Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> unguarded(registry) == 0);

          // unset again while it streams: it stops within a slot check
          pg.standbySlotsOnPrimary("");
          awaitRefusal(supervisor, loop, refused.restarts());
          assertThat(relay.isLeader()).isFalse();
        }

        // the operator accepts the risk: the override publishes what was written since
        Set<String> second = append(dsl, 5);
        SimpleMeterRegistry accepting = new SimpleMeterRegistry();
        try (OutboxRelay relay =
            new OutboxRelay(config.allowUnguardedStandbys(true).build(), accepting).start()) {
          relay.awaitStreaming(Duration.ofSeconds(60));
          assertThat(ids(reader.readUntilAll(second, Duration.ofSeconds(60)))).containsAll(second);
          Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> unguarded(accepting) == 1);
        }
        pg.holdStandbyReplay(false);
      }
    }
  }

  /** Waits until the relay's loop backs off on the standby refusal after {@code restarts}. */
  private static LoopHealth awaitRefusal(Supervisor supervisor, String loop, long restarts) {
    return Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                supervisor.health().stream()
                    .filter(h -> h.name().equals(loop))
                    .findFirst()
                    .orElseThrow(),
            h ->
                h.state() == LoopState.BACKING_OFF
                    && h.restarts() > restarts
                    && h.lastError() != null
                    && h.lastError().contains("logical decoding does not wait for"));
  }

  private static double unguarded(SimpleMeterRegistry registry) {
    return registry.get("ordinal.relay.standbys.unguarded").gauge().value();
  }

  private static Set<String> append(DSLContext dsl, int n) {
    Outbox outbox = new Outbox(Clock.systemUTC());
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < n; i++) {
      int k = i;
      ids.add(
          dsl.transactionResult(
              c ->
                  outbox
                      .append(
                          c.dsl(), new OutboxEvent("ghost", "g-" + k, "Seq", "{\"i\":" + k + "}"))
                      .toString()));
    }
    return ids;
  }

  private static Set<String> ids(List<ConsumerRecord<String, String>> records) {
    return records.stream().map(TopicReader::messageId).collect(Collectors.toSet());
  }
}
