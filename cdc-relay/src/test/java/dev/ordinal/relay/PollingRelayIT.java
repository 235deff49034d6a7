package dev.ordinal.relay;

import static dev.ordinal.messaging.db.Tables.OUTBOX;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.messaging.db.tables.records.OutboxRecord;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.messaging.outbox.OutboxEvent;
import dev.ordinal.relay.internal.PollingOutbox;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.SettableClock;
import dev.ordinal.testkit.TestKafka;
import dev.ordinal.testkit.TestNamespace;
import dev.ordinal.testkit.TopicReads;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(OrdinalStackExtension.class)
class PollingRelayIT {
  static final Instant T0 = Instant.parse("2026-03-02T12:00:00Z");
  static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  static final String TRACESTATE = "ordinal=t1";

  static DatabaseSettings db;
  static HikariDataSource pool;
  static DSLContext dsl;

  @BeforeAll
  static void schema(TestNamespace ns) {
    db = RelayFixture.ownerSettings(ns);
    pool = db.pool("polling-relay-it", 8);
    Migrations.applyOutbox(pool, ns.schema());
    dsl = DSL.using(pool, SQLDialect.POSTGRES);
    // Created ahead, as in a deployment: the first produce to an auto-created topic can race the
    // partition's creation (KAFKA-15591), and the relay then retries that batch after its lease.
    List<String> topics = List.of(ns.topic("order"), ns.topic("payment"), ns.topic("parcel"));
    topics.forEach(t -> Topics.ensure(ns.stack().kafkaBootstrap(), t, 3));
    try (Admin admin =
        Admin.create(
            Map.<String, Object>of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ns.stack().kafkaBootstrap()))) {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  admin.describeTopics(topics).allTopicNames().get().values().stream()
                      .flatMap(d -> d.partitions().stream())
                      .allMatch(p -> p.leader() != null && !p.leader().isEmpty()));
    }
  }

  @AfterAll
  static void closePool() {
    if (pool != null) {
      pool.close();
    }
  }

  @BeforeEach
  void emptyTheOutbox() {
    dsl.deleteFrom(OUTBOX).execute();
  }

  @Test
  void threeInstancesPublishEachOf3000CommittedEventsExactlyOnceAndNoRolledBackOne(TestNamespace ns)
      throws Exception {
    int writers = 4;
    int eventsPerWriter = 750; // 250 committed transactions of 3 rows each
    Set<UUID> committed = ConcurrentHashMap.newKeySet();
    Set<UUID> rolledBack = ConcurrentHashMap.newKeySet();
    List<PollingRelay> relays = new ArrayList<>();
    List<SimpleMeterRegistry> registries = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        registries.add(registry);
        relays.add(
            new PollingRelay(
                    config(ns).withInstanceId("relay-" + i).withPolling(Duration.ofMillis(50), 100),
                    registry)
                .start());
      }
      ExecutorService executor = Executors.newFixedThreadPool(writers);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
          int writer = w;
          done.add(
              executor.submit(() -> write(writer, eventsPerWriter, committed, rolledBack), null));
        }
        for (Future<?> f : done) {
          f.get(60, TimeUnit.SECONDS);
        }
      } finally {
        executor.shutdownNow();
      }
      assertThat(committed).hasSize(3000);
      assertThat(rolledBack).hasSize(3 * 62 * writers); // every 5th of 312 transactions per writer

      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> dsl.fetchCount(OUTBOX, OUTBOX.DISPATCHED_AT.isNull()) == 0);
      // the loop refreshes the backlog gauge when it goes idle
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> relays.stream().allMatch(r -> r.undispatched() == 0));
    } finally {
      relays.forEach(PollingRelay::close);
    }

    assertThat(relays.stream().mapToLong(PollingRelay::published).sum()).isEqualTo(3000);
    assertThat(relays).allSatisfy(r -> assertThat(r.published()).isPositive());
    assertThat(relays).allSatisfy(r -> assertThat(r.failures()).isZero());
    for (int i = 0; i < 3; i++) {
      assertThat(registries.get(i).get("ordinal.relay.polling.lag").timer().count())
          .isEqualTo(relays.get(i).published());
    }

    Map<UUID, OutboxRecord> rows = rowsById();
    assertThat(rows.keySet()).isEqualTo(committed);
    assertThat(rows.values())
        .allSatisfy(
            r -> {
              assertThat(r.getDispatchedAt()).isNotNull();
              assertThat(r.getLeaseOwner()).isNull();
              assertThat(r.getLeasedUntil()).isNull();
            });

    List<ConsumerRecord<String, String>> records =
        readAll(ns, List.of(ns.topic("order"), ns.topic("payment")), 3000);
    Map<UUID, Integer> perMessageId = countPerMessageId(ns, records, rows, record -> {});
    assertThat(perMessageId.keySet()).isEqualTo(committed).doesNotContainAnyElementsOf(rolledBack);
    assertThat(perMessageId.values()).containsOnly(1);
  }

  @Test
  void aCrashedInstancesLeasedRowsWaitForTheLeaseToExpireAndArePublishedOnceThen(TestNamespace ns) {
    SettableClock clock = new SettableClock(T0);
    Outbox outbox = new Outbox(clock);
    Duration lease = PollingRelayConfig.DEFAULT_LEASE;
    Set<UUID> leased = append(outbox, "leased", 7);

    // the crashed instance: claims with the relay's own claim statement, then publishes nothing
    PollingOutbox crashed = new PollingOutbox(dsl, clock, "crashed", lease, 100);
    assertThat(crashed.claim()).extracting(PollingOutbox.Row::id).hasSameElementsAs(leased);
    OffsetDateTime leasedUntil = OffsetDateTime.ofInstant(T0.plus(lease), ZoneOffset.UTC);
    assertThat(dsl.fetchCount(OUTBOX, OUTBOX.LEASE_OWNER.eq("crashed"))).isEqualTo(7);
    assertThat(dsl.fetchCount(OUTBOX, OUTBOX.LEASED_UNTIL.eq(leasedUntil))).isEqualTo(7);

    clock.advance(Duration.ofSeconds(1));
    Set<UUID> fresh = append(outbox, "fresh", 5); // younger than the leased rows
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (PollingRelay survivor =
        new PollingRelay(
                config(ns).withInstanceId("survivor").withPolling(Duration.ofMillis(20), 100),
                registry,
                clock)
            .start()) {
      // the older, leased rows come first in occurred_at order, yet only the fresh ones go out
      await().atMost(Duration.ofSeconds(10)).until(() -> survivor.published() == 5);

      // up to the lease's last microsecond (leased_until = now is still held) nothing more goes
      clock.set(T0.plus(lease));
      await()
          .during(Duration.ofMillis(500))
          .atMost(Duration.ofSeconds(2))
          .until(() -> survivor.published() == 5);
      assertThat(dsl.fetchCount(OUTBOX, OUTBOX.LEASE_OWNER.eq("crashed"))).isEqualTo(7);
      assertThat(dsl.fetchCount(OUTBOX, OUTBOX.DISPATCHED_AT.isNull())).isEqualTo(7);

      clock.set(T0.plus(lease).plusNanos(1_000));
      await().atMost(Duration.ofSeconds(10)).until(() -> survivor.published() == 12);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> dsl.fetchCount(OUTBOX, OUTBOX.DISPATCHED_AT.isNull()) == 0);
      assertThat(survivor.failures()).isZero();
    }

    assertThat(
            dsl.fetchCount(
                OUTBOX,
                OUTBOX
                    .ID
                    .in(leased)
                    .and(
                        OUTBOX.DISPATCHED_AT.eq(
                            OffsetDateTime.ofInstant(
                                T0.plus(lease).plusNanos(1_000), ZoneOffset.UTC)))))
        .isEqualTo(7);
    // the crashed instance, were it to come back, can no longer mark the rows it lost
    assertThat(crashed.markDispatched(leased)).isZero();

    Map<UUID, OutboxRecord> rows = rowsById();
    List<ConsumerRecord<String, String>> records = readAll(ns, List.of(ns.topic("parcel")), 12);
    Map<UUID, Integer> perMessageId =
        countPerMessageId(
            ns,
            records,
            rows,
            record -> {
              assertThat(MessageHeaders.get(record.headers(), MessageHeaders.TRACEPARENT))
                  .contains(TRACEPARENT);
              assertThat(MessageHeaders.get(record.headers(), MessageHeaders.TRACESTATE))
                  .contains(TRACESTATE);
            });
    Set<UUID> all = new HashSet<>(leased);
    all.addAll(fresh);
    assertThat(perMessageId.keySet()).isEqualTo(all);
    assertThat(perMessageId.values()).containsOnly(1);
  }

  @Test
  void noInstanceClaimsAYoungerRowOfAnAggregateWhoseOlderRowIsLeasedOrUnsent(TestNamespace ns) {
    SettableClock clock = new SettableClock(T0);
    Outbox outbox = new Outbox(clock);
    List<UUID> parcel = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      clock.advance(Duration.ofMillis(1));
      parcel.add(
          dsl.transactionResult(
              c -> outbox.append(c.dsl(), new OutboxEvent("parcel", "p-1", "Step", "{}"))));
    }
    clock.advance(Duration.ofMillis(1));
    UUID other =
        dsl.transactionResult(
            c -> outbox.append(c.dsl(), new OutboxEvent("parcel", "p-2", "Step", "{}")));
    Duration lease = PollingRelayConfig.DEFAULT_LEASE;
    PollingOutbox first = new PollingOutbox(dsl, clock, "first", lease, 2);
    PollingOutbox second = new PollingOutbox(dsl, clock, "second", lease, 100);

    // the first takes p-1's two oldest rows (its batch is 2); the second may take p-2 only
    assertThat(first.claim())
        .extracting(PollingOutbox.Row::id)
        .containsExactlyElementsOf(parcel.subList(0, 2));
    assertThat(second.claim()).extracting(PollingOutbox.Row::id).containsExactly(other);
    assertThat(second.claim()).isEmpty();

    // the first publishes the oldest, its second send fails and it releases that row: the run
    // starts there again, for anyone
    assertThat(first.markDispatched(List.of(parcel.get(0)))).isOne();
    assertThat(first.release(List.of(parcel.get(1)))).isOne();
    assertThat(second.claim())
        .extracting(PollingOutbox.Row::id)
        .containsExactlyElementsOf(parcel.subList(1, 5));

    // a crashed holder: nothing of p-1 is claimed until its lease has run out, then all of it
    assertThat(first.claim()).isEmpty();
    clock.advance(lease.plusNanos(1_000));
    assertThat(first.claim())
        .extracting(PollingOutbox.Row::id)
        .containsExactlyElementsOf(parcel.subList(1, 3));
  }

  /** The outbox's rows by their id. */
  private static Map<UUID, OutboxRecord> rowsById() {
    Map<UUID, OutboxRecord> rows = new HashMap<>();
    dsl.selectFrom(OUTBOX).fetch().forEach(r -> rows.put(r.getId(), r));
    return rows;
  }

  /**
   * How many of {@code records} carry each message id; each record checked against its row by the
   * contract, then by {@code check}.
   */
  private static Map<UUID, Integer> countPerMessageId(
      TestNamespace ns,
      List<ConsumerRecord<String, String>> records,
      Map<UUID, OutboxRecord> rows,
      java.util.function.Consumer<ConsumerRecord<String, String>> check) {
    Map<UUID, Integer> perMessageId = new HashMap<>();
    for (ConsumerRecord<String, String> record : records) {
      UUID id =
          UUID.fromString(
              MessageHeaders.get(record.headers(), MessageHeaders.MESSAGE_ID).orElseThrow());
      perMessageId.merge(id, 1, Integer::sum);
      assertContract(ns, record, rows.get(id));
      check.accept(record);
    }
    return perMessageId;
  }

  @Test
  void closeIsPromptWhileIdleAndIdempotentAndAClosedRelayDoesNotStartAgain(TestNamespace ns) {
    PollingRelay relay =
        new PollingRelay(
            config(ns).withInstanceId("sleeper").withPolling(Duration.ofHours(1), 10),
            new SimpleMeterRegistry());
    relay.start();
    assertThat(relay.isRunning()).isTrue();

    long started = System.nanoTime();
    relay.close();
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    assertThat(relay.isRunning()).isFalse();
    relay.close();
    assertThatThrownBy(relay::start).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void startRefusesASchemaWithoutTheOutboxLeaseColumns(TestNamespace ns) {
    PollingRelayConfig noOutbox =
        PollingRelayConfig.builder(
                db.withSchema(ns.schema("none")), ns.stack().kafkaBootstrap(), ns.topicPrefix())
            .instanceId("lost")
            .batchSize(10)
            .build();
    try (PollingRelay relay = new PollingRelay(noOutbox, new SimpleMeterRegistry())) {
      assertThatThrownBy(relay::start)
          .isInstanceOf(ConfigurationException.class)
          .hasMessageContaining("lacks the lease columns")
          .hasMessageContaining("Migrations.applyOutbox");
    }
  }

  static PollingRelayConfig config(TestNamespace ns) {
    return PollingRelayConfig.of(db, ns.stack().kafkaBootstrap(), ns.topicPrefix());
  }

  /**
   * Commits transactions of 3 events until {@code events} are committed; every 5th transaction
   * writes its 3 rows and then rolls back.
   */
  static void write(int writer, int events, Set<UUID> committed, Set<UUID> rolledBack) {
    Outbox outbox = new Outbox(Clock.systemUTC());
    int written = 0;
    for (int tx = 0; written < events; tx++) {
      boolean rollBack = tx % 5 == 4;
      String type = tx % 2 == 0 ? "order" : "payment";
      String aggregate = "w" + writer + "-" + (tx % 7);
      String payload = "{\"writer\": " + writer + ", \"tx\": " + tx + "}";
      List<UUID> ids = new ArrayList<>();
      try {
        dsl.transaction(
            c -> {
              for (int k = 0; k < 3; k++) {
                ids.add(
                    outbox.append(c.dsl(), new OutboxEvent(type, aggregate, "Step" + k, payload)));
              }
              if (rollBack) {
                throw new RolledBackOnPurpose();
              }
            });
        committed.addAll(ids);
        written += ids.size();
      } catch (RolledBackOnPurpose expected) {
        rolledBack.addAll(ids);
      }
    }
  }

  static Set<UUID> append(Outbox outbox, String aggregate, int n) {
    Set<UUID> ids = new HashSet<>();
    dsl.transaction(
        c -> {
          for (int i = 0; i < n; i++) {
            ids.add(
                outbox.append(
                    c.dsl(),
                    new OutboxEvent(
                        "parcel",
                        aggregate + "-" + i,
                        "ParcelSent",
                        "{\"n\": " + i + "}",
                        TRACEPARENT,
                        TRACESTATE)));
          }
        });
    return ids;
  }

  /**
   * Every record of {@code topics} from the beginning: polls until {@code expected} arrived, then
   * checks from the end offsets that the topics hold no more than that.
   */
  static List<ConsumerRecord<String, String>> readAll(
      TestNamespace ns, List<String> topics, int expected) {
    List<ConsumerRecord<String, String>> seen;
    try (KafkaConsumer<String, String> consumer = TestKafka.consumer(ns.stack().kafkaBootstrap())) {
      List<TopicPartition> partitions = TopicReads.partitions(consumer, topics);
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      seen = TopicReads.pollAtLeast(consumer, expected, Duration.ofSeconds(30));
      long inTopics = TopicReads.endOffsetSum(consumer, partitions);
      assertThat(inTopics).isEqualTo(expected);
    }
    assertThat(seen).hasSize(expected);
    return seen;
  }

  /** Topic, key, value and headers as the message contract says, from the outbox row. */
  static void assertContract(
      TestNamespace ns, ConsumerRecord<String, String> record, OutboxRecord row) {
    assertThat(row).as("outbox row of a published message id").isNotNull();
    assertThat(record.topic()).isEqualTo(ns.topic(row.getAggregateType()));
    assertThat(record.key()).isEqualTo(row.getAggregateId());
    assertThat(record.value()).isEqualTo(row.getPayload().data());
    assertThat(MessageHeaders.get(record.headers(), MessageHeaders.EVENT_TYPE))
        .contains(row.getEventType());
    assertThat(MessageHeaders.get(record.headers(), MessageHeaders.AGGREGATE_TYPE))
        .contains(row.getAggregateType());
    assertThat(MessageHeaders.get(record.headers(), MessageHeaders.OCCURRED_AT))
        .contains(row.getOccurredAt().toInstant().toString());
    assertThat(MessageHeaders.get(record.headers(), MessageHeaders.TRACEPARENT))
        .isEqualTo(java.util.Optional.ofNullable(row.getTraceparent()));
    assertThat(MessageHeaders.get(record.headers(), MessageHeaders.TRACESTATE))
        .isEqualTo(java.util.Optional.ofNullable(row.getTracestate()));
  }

  static final class RolledBackOnPurpose extends RuntimeException {
    RolledBackOnPurpose() {
      super("roll back on purpose");
    }
  }
}
