package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.testkit.KafkaCluster;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.awaitility.Awaitility;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The relay against a three-node Kafka cluster (each node a JVM of its own) with its topic at
 * replication factor 3 and {@code min.insync.replicas} 2, under a steady stream of outbox writes
 * (50 keys, each key's events numbered in commit order): the leader of a partition killed with
 * {@code kill -9} and started again, then the leader of another frozen with {@code kill -STOP} past
 * the producer's delivery timeout and thawed. Oracles: the outbox table (what committed) and the
 * topic read back from the cluster. Nothing committed is missing, and no key's event k+1 is on the
 * topic before its event k (the first occurrence of each, compared per key): a producer whose send
 * failed would otherwise go on writing the batches queued after it.
 */
@ExtendWith(OrdinalStackExtension.class)
class ReplicatedBrokersIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  @Timeout(value = 6, unit = java.util.concurrent.TimeUnit.MINUTES)
  void aKilledBrokerLosesNothingAndAFrozenOneNeverPutsAKeysLaterEventFirst(
      TestNamespace ns, @TempDir Path dir) throws Exception {
    String schema = ns.schema();
    String topic = ns.topic("order");
    String lateTopic = ns.topic("late");
    try (KafkaCluster kafka = KafkaCluster.start(dir, 3)) {
      DatabaseSettings db =
          new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword())
              .withSchema(schema);
      Map<String, Object> producer = new HashMap<>();
      // a send waits at most 4 s, less than the 6 s in which the cluster fences a frozen node:
      // the batches a frozen leader holds fail before another replica leads
      producer.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_500);
      producer.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 4_000);
      producer.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000);
      RelayConfig config =
          RelayConfig.builder(db, kafka.bootstrapServers(), schema, ns.topicPrefix())
              .slot(ns.name() + "_slot", ns.name() + "_pub", false)
              .instanceId("brokers")
              .topicDurability(new Topics.Durability(3, 2))
              .leaderRetryInterval(Duration.ofMillis(500))
              .kafka(producer)
              .build();
      try (HikariDataSource pool = db.pool("brokers-writers", 3, Duration.ofSeconds(5));
          TopicReader reader = new TopicReader(kafka.bootstrapServers(), topic)) {
        Migrations.applyOutbox(pool, schema);
        ResilientWriter writer = new ResilientWriter(DSL.using(pool, SQLDialect.POSTGRES), 150);
        Thread writing = new Thread(writer, "brokers-writer");
        try (OutboxRelay relay = new OutboxRelay(config, new SimpleMeterRegistry()).start()) {
          relay.awaitStreaming(Duration.ofSeconds(60));
          writing.start();
          awaitRelayed(relay, 300);

          int killed = kafka.leaderOf(topic, 0);
          kafka.kill(killed);
          awaitRelayed(relay, relay.relayed() + 300); // two in-sync replicas take the writes
          // a topic first needed while a broker is away gets the cluster's three copies (one on
          // the away broker, in sync once it is back), not two for good
          Set<String> late = appendLate(pool, 5);
          try (TopicReader lateReader = new TopicReader(kafka.bootstrapServers(), lateTopic)) {
            assertThat(ids(lateReader.readUntilAll(late, Duration.ofSeconds(60))))
                .containsAll(late);
          }
          int lateReplicas = kafka.replicationFactor(lateTopic);
          kafka.restart(killed);
          Awaitility.await()
              .atMost(Duration.ofSeconds(60))
              .pollInterval(Duration.ofMillis(500))
              .until(() -> kafka.fullyInSync(topic));

          int frozen = kafka.leaderOf(topic, 1);
          String failureBefore = relay.lastFailure();
          kafka.freeze(frozen);
          try {
            // frozen until a send has failed past its delivery timeout and another replica leads
            Awaitility.await()
                .atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(500))
                .ignoreExceptions() // the frozen node may be the one an admin call asks first
                .until(
                    () ->
                        relay.lastFailure() != null
                            && !relay.lastFailure().equals(failureBefore)
                            && kafka.leaderOf(topic, 1) != frozen);
          } finally {
            kafka.thaw(frozen);
          }
          String failure = relay.lastFailure();
          awaitRelayed(relay, relay.relayed() + 300);
          writer.stop.set(true);
          writing.join(30_000);

          Set<String> committed =
              DSL.using(pool, SQLDialect.POSTGRES)
                  .select(DSL.field(DSL.name("id"), String.class))
                  .from(DSL.table(DSL.name("outbox")))
                  .fetchSet(DSL.field(DSL.name("id"), String.class));
          committed.removeAll(late); // on their own topic, read above
          List<ConsumerRecord<String, String>> records =
              reader.readUntilAll(committed, Duration.ofSeconds(120));
          Set<String> onKafka = new HashSet<>();
          records.forEach(r -> onKafka.add(TopicReader.messageId(r)));
          Set<String> missing = new HashSet<>(committed);
          missing.removeAll(onKafka);

          // per key, the events' numbers in the order each first reached its partition
          Map<String, List<Long>> firstSeen = new HashMap<>();
          Set<String> seen = new LinkedHashSet<>();
          for (ConsumerRecord<String, String> r : records) {
            if (seen.add(TopicReader.messageId(r))) {
              firstSeen
                  .computeIfAbsent(r.key(), k -> new ArrayList<>())
                  .add(JSON.readTree(r.value()).get("i").asLong());
            }
          }
          List<String> outOfOrder = new ArrayList<>();
          firstSeen.forEach(
              (key, numbers) -> {
                for (int i = 1; i < numbers.size(); i++) {
                  if (numbers.get(i) < numbers.get(i - 1)) {
                    outOfOrder.add(key + ": " + numbers.get(i - 1) + " before " + numbers.get(i));
                  }
                }
              });
          System.out.printf(
              "brokers: node %d killed and restarted, node %d frozen past the delivery timeout;"
                  + " %d rows committed (%d writes failed), %d records on the topic (%d"
                  + " duplicates), %d missing, %d keys with an event first written before an"
                  + " earlier one; the relay's failure under the freeze: %s; the topic first"
                  + " needed while a broker was away has %d replicas%n",
              killed,
              frozen,
              committed.size(),
              writer.failed.get(),
              records.size(),
              records.size() - onKafka.size(),
              missing.size(),
              outOfOrder.size(),
              failure,
              lateReplicas);
          assertThat(missing).as("committed outbox rows missing from the topic").isEmpty();
          assertThat(outOfOrder)
              .as("a key's later event first written before an earlier one")
              .isEmpty();
          assertThat(committed).hasSizeGreaterThanOrEqualTo(900);
          assertThat(lateReplicas)
              .as("replicas of a topic made while a broker was away")
              .isEqualTo(3);
        } finally {
          writer.stop.set(true);
          writing.join(30_000);
        }
      }
    }
  }

  private static Set<String> appendLate(HikariDataSource pool, int n) {
    dev.ordinal.messaging.outbox.Outbox outbox =
        new dev.ordinal.messaging.outbox.Outbox(java.time.Clock.systemUTC());
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < n; i++) {
      int k = i;
      ids.add(
          DSL.using(pool, SQLDialect.POSTGRES)
              .transactionResult(
                  c ->
                      outbox
                          .append(
                              c.dsl(),
                              new dev.ordinal.messaging.outbox.OutboxEvent(
                                  "late", "l-" + k, "Seq", "{\"i\":" + k + "}"))
                          .toString()));
    }
    return ids;
  }

  private static Set<String> ids(List<ConsumerRecord<String, String>> records) {
    Set<String> ids = new HashSet<>();
    records.forEach(r -> ids.add(TopicReader.messageId(r)));
    return ids;
  }

  private static void awaitRelayed(OutboxRelay relay, long atLeast) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> relay.relayed() >= atLeast);
  }
}
