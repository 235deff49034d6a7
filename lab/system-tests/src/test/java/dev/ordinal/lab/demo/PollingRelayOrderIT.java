package dev.ordinal.lab.demo;

import static dev.ordinal.messaging.db.Tables.OUTBOX;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.messaging.outbox.OutboxEvent;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import dev.ordinal.testkit.TopicReads;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@code ./ordinal relay --mode polling} processes relay 80 aggregates of 12 events each,
 * written one transaction per event at a steady rate, while the broker refuses some sends now and
 * then: each aggregate writes 4 events in a row, the second of them 1.5 kB, and the topic's {@code
 * max.message.bytes} (a real broker check, set through the admin API on this test's topic only)
 * drops to 1,000 bytes for 0.8 s out of every 1.6 s while the events are written. Such a send fails
 * with {@code RecordTooLargeException} from the broker while the younger, smaller events of its
 * aggregate would go through. Asserted: every event is on Kafka, and each aggregate's events,
 * duplicates dropped (first copy of each message id), come in the order they were written.
 */
@ExtendWith(OrdinalStackExtension.class)
class PollingRelayOrderIT {
  static final int AGGREGATES = 80;
  static final int EVENTS_PER_AGGREGATE = 12;
  static final double RATE = 150;
  static final int SMALL_LIMIT = 1_000;
  static final int LARGE_LIMIT = 1_048_588;
  static final Pattern SEQ = Pattern.compile("\"seq\": ?(\\d+)");

  @TempDir Path home;

  @Test
  void twoInstancesUnderSendFailuresPublishEveryEventAndKeepEachAggregatesOrder(TestNamespace ns)
      throws Exception {
    String schema = ns.schema("orders_order");
    String topic = ns.topic("order");
    String bootstrap = ns.stack().kafkaBootstrap();
    DatabaseSettings db =
        new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword())
            .withSchema(schema);
    Topics.ensure(bootstrap, topic, 3);
    try (HikariDataSource pool = db.pool("order-it", 4);
        Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      Migrations.applyOutbox(pool, schema);
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      List<ServiceProcess> relays = new ArrayList<>();
      AtomicBoolean writing = new AtomicBoolean(true);
      AtomicInteger lowWindows = new AtomicInteger();
      Map<String, Integer> written = new HashMap<>();
      try {
        for (String instance : List.of("a", "b")) {
          relays.add(
              ProductProcesses.start(
                  ns, home, schema, instance, "--poll-interval", "50ms", "--batch-size", "50"));
        }
        CompletableFuture<Void> toggling =
            CompletableFuture.runAsync(
                () -> {
                  while (writing.get()) {
                    setLimit(admin, topic, SMALL_LIMIT);
                    lowWindows.incrementAndGet();
                    pause(400);
                    setLimit(admin, topic, LARGE_LIMIT);
                    pause(400);
                  }
                });
        try {
          write(dsl, written);
        } finally {
          writing.set(false);
          toggling.get(30, TimeUnit.SECONDS);
        }
        await()
            .atMost(Duration.ofSeconds(120))
            .pollInterval(Duration.ofMillis(200))
            .until(() -> dsl.fetchCount(OUTBOX, OUTBOX.DISPATCHED_AT.isNull()) == 0);

        double failures = 0;
        for (ServiceProcess r : relays) {
          double published = ProductProcesses.metric(r, "ordinal_relay_polling_events_total{", "");
          double failed =
              ProductProcesses.metric(
                  r, "ordinal_relay_polling_failures_total{", "stage=\"publish\"");
          System.out.printf(
              "polling order: relay %s published %.0f, failed publish cycles %.0f%n",
              r.name(), published, failed);
          assertThat(published).as(r.name() + " took part").isPositive();
          failures += failed;
        }
        assertThat(failures).as("sends the broker refused").isPositive();
      } finally {
        writing.set(false);
        for (ServiceProcess r : relays) {
          r.stop(Duration.ofSeconds(30));
        }
      }

      List<ConsumerRecord<String, String>> records =
          TopicReads.readToEnd(
              bootstrap,
              IntStream.range(0, 3)
                  .mapToObj(p -> new org.apache.kafka.common.TopicPartition(topic, p))
                  .toList(),
              Duration.ofSeconds(60));
      Set<String> seen = new HashSet<>();
      Map<String, List<Integer>> firstCopies = new HashMap<>();
      for (ConsumerRecord<String, String> r : records) {
        String id = MessageHeaders.get(r.headers(), MessageHeaders.MESSAGE_ID).orElseThrow();
        if (seen.add(id)) {
          Matcher m = SEQ.matcher(r.value());
          assertThat(m.find()).as("seq in " + r.value()).isTrue();
          firstCopies
              .computeIfAbsent(r.key(), k -> new ArrayList<>())
              .add(Integer.parseInt(m.group(1)));
        }
      }
      List<String> outOfOrder = new ArrayList<>();
      firstCopies.forEach(
          (aggregate, seqs) -> {
            if (!seqs.equals(IntStream.rangeClosed(1, seqs.size()).boxed().toList())) {
              outOfOrder.add(aggregate + " " + seqs);
            }
          });
      System.out.printf(
          "polling order: %d events written, %d records on Kafka, %d distinct, %d duplicates,"
              + " %d low-limit windows, %d of %d aggregates out of order%n",
          written.size(),
          records.size(),
          seen.size(),
          records.size() - seen.size(),
          lowWindows.get(),
          outOfOrder.size(),
          AGGREGATES);
      assertThat(seen).as("every event at least once, nothing else").isEqualTo(written.keySet());
      assertThat(outOfOrder).as("aggregates whose first copies are out of order").isEmpty();
      assertThat(firstCopies).hasSize(AGGREGATES);
      assertThat(firstCopies.values()).allSatisfy(s -> assertThat(s).hasSize(EVENTS_PER_AGGREGATE));
    }
  }

  /**
   * One transaction per event, at {@link #RATE}: aggregate after aggregate, each writing 4 events
   * in a row (so a batch holds several of one aggregate), the second of each 4 large.
   */
  private static void write(DSLContext dsl, Map<String, Integer> written) throws Exception {
    Outbox outbox = new Outbox(Clock.systemUTC());
    long start = System.nanoTime();
    int n = 0;
    for (int first = 1; first <= EVENTS_PER_AGGREGATE; first += 4) {
      for (int a = 0; a < AGGREGATES; a++) {
        String aggregate = "agg-" + a;
        for (int seq = first; seq < first + 4; seq++) {
          String pad = seq % 4 == 2 ? ", \"pad\": \"" + "x".repeat(1_500) + "\"" : "";
          String payload = "{\"seq\": " + seq + pad + "}";
          written.put(
              dsl.transactionResult(
                      c ->
                          outbox.append(
                              c.dsl(), new OutboxEvent("order", aggregate, "Seq", payload)))
                  .toString(),
              seq);
        }
        n += 4;
        long wait = start + (long) (n / RATE * 1e9) - System.nanoTime();
        if (wait > 0) {
          // the writer's pace, not a wait for a condition
          TimeUnit.NANOSECONDS.sleep(wait);
        }
      }
    }
  }

  private static void setLimit(Admin admin, String topic, int bytes) {
    try {
      admin
          .incrementalAlterConfigs(
              Map.of(
                  new ConfigResource(ConfigResource.Type.TOPIC, topic),
                  List.of(
                      new AlterConfigOp(
                          new ConfigEntry(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, "" + bytes),
                          AlterConfigOp.OpType.SET))))
          .all()
          .get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The fault's pace, not a wait for a condition. */
  private static void pause(long millis) {
    try {
      TimeUnit.MILLISECONDS.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
