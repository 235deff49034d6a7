package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.relay.internal.SlotPosition;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.ReplicatedPostgres;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
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
 * and publishes every outbox row of the surviving timeline, and nothing that timeline lost.
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
}
