package dev.ordinal.lab.bench;

import static dev.ordinal.lab.bench.RelayBench.AGGREGATE;
import static dev.ordinal.lab.bench.RelayBench.PARTITIONS;
import static dev.ordinal.lab.bench.RelayBench.PAYLOAD;
import static dev.ordinal.lab.bench.RelayBench.SETTLE;
import static dev.ordinal.lab.bench.RelayBench.STREAMING_TIMEOUT;

import dev.ordinal.lab.bench.RelayBench.Settings;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.messaging.outbox.OutboxEvent;
import dev.ordinal.relay.OutboxRelay;
import dev.ordinal.relay.PollingRelay;
import dev.ordinal.relay.PollingRelayConfig;
import dev.ordinal.relay.RelayConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * Where each relay measurement runs: its schema, topic, slot and publication (made before it and
 * dropped after it), the relays it starts on them, the outbox rows it writes, and the waits it
 * shares with the others.
 */
final class RelayStage {
  private final BenchTarget on;
  private final Settings s;
  private final DatabaseLoad load;
  private final Outbox outbox = new Outbox(Clock.systemUTC());

  RelayStage(BenchTarget on, Settings s, DatabaseLoad load) {
    this.on = on;
    this.s = s;
    this.load = load;
  }

  BenchTarget on() {
    return on;
  }

  Settings settings() {
    return s;
  }

  DatabaseLoad load() {
    return load;
  }

  Outbox outbox() {
    return outbox;
  }

  /** One measurement's names: schema, topic prefix, slot and publication. */
  record Namespace(String name) {
    String schema() {
      return "bench_relay_" + name;
    }

    String topicPrefix() {
      return schema();
    }

    String topic() {
      return topicPrefix() + "." + AGGREGATE;
    }
  }

  @FunctionalInterface
  interface RelayStarter {
    AutoCloseable start(Namespace ns) throws Exception;
  }

  // ---- relays ----

  OutboxRelay startCdc(Namespace ns, Duration pollInterval) throws InterruptedException {
    RelayConfig config =
        RelayConfig.builder(
                on.db().withSchema(ns.schema()), on.bootstrap(), ns.schema(), ns.topicPrefix())
            .slot(ns.schema(), ns.schema(), true)
            .instanceId(ns.schema())
            .pollInterval(pollInterval)
            .build();
    OutboxRelay relay = new OutboxRelay(config, new SimpleMeterRegistry()).start();
    try {
      relay.awaitStreaming(STREAMING_TIMEOUT);
    } catch (RuntimeException | InterruptedException e) {
      relay.close();
      throw e;
    }
    return relay;
  }

  /** The CDC relay of {@code ns} in a JVM of its own, on the namespace's slot. */
  RelayProcess startRelayProcess(Namespace ns, Duration pollInterval, String cores)
      throws java.io.IOException, InterruptedException {
    return RelayProcess.start(
        on.db().withSchema(ns.schema()),
        on.bootstrap(),
        ns.schema(),
        ns.topicPrefix(),
        ns.schema(),
        pollInterval,
        cores);
  }

  PollingRelay startPolling(Namespace ns, Duration interval) {
    return new PollingRelay(
            PollingRelayConfig.of(on.db().withSchema(ns.schema()), on.bootstrap(), ns.topicPrefix())
                .withInstanceId(ns.schema())
                .withPolling(interval, PollingRelayConfig.DEFAULT_BATCH_SIZE),
            new SimpleMeterRegistry())
        .start();
  }

  // ---- schema, topic and slot of one measurement ----

  void prepare(Namespace ns, boolean topic) throws Exception {
    cleanup(ns);
    Migrations.applyOutbox(on.adminPool(), ns.schema());
    if (topic) {
      // created ahead: the first produce to an auto-created topic can race the partition's
      // creation with an idempotent producer (KAFKA-15591)
      Topics.ensure(on.bootstrap(), ns.topic(), PARTITIONS);
      awaitLeaders(ns.topic());
    }
  }

  /**
   * See {@link DatabaseLoad#quiesce()}; then lets the relay settle for {@link #SETTLE}, and in any
   * case until {@code notBefore}.
   */
  void quiesce(long notBefore) throws InterruptedException {
    load.quiesce();
    sleepUntil(Math.max(System.nanoTime() + SETTLE.toNanos(), notBefore));
  }

  /** Drops what a measurement made (or an earlier, interrupted run left behind). */
  void cleanup(Namespace ns) {
    dropRelayed(on.admin(), ns.schema());
  }

  /**
   * Drops what a bench relay of outbox {@code schema} leaves (its slot once no relay streams from
   * it, its publication, both named after the schema) and the schema itself.
   */
  static void dropRelayed(DSLContext admin, String schema) {
    dropSlotAndPublication(admin, schema);
    admin.dropSchemaIfExists(schema).cascade().execute();
  }

  /**
   * Drops replication slot {@code name} once no relay streams from it, and publication {@code
   * name}.
   */
  static void dropSlotAndPublication(DSLContext admin, String name) {
    admin
        .select(DSL.field("pg_drop_replication_slot(slot_name)"))
        .from(DSL.table(DSL.name("pg_catalog", "pg_replication_slots")))
        .where(DSL.field(DSL.name("slot_name"), String.class).eq(name))
        .and(DSL.field(DSL.name("active"), Boolean.class).isFalse())
        .fetch();
    admin.execute("drop publication if exists {0}", DSL.name(name));
  }

  private void awaitLeaders(String topic) throws InterruptedException {
    try (Admin kafka =
        Admin.create(
            Map.<String, Object>of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, on.bootstrap()))) {
      boolean ready =
          waitFor(
              () -> {
                try {
                  return kafka
                      .describeTopics(List.of(topic))
                      .allTopicNames()
                      .get()
                      .values()
                      .stream()
                      .flatMap(d -> d.partitions().stream())
                      .allMatch(p -> p.leader() != null && !p.leader().isEmpty());
                } catch (Exception e) {
                  return false;
                }
              },
              System.nanoTime() + Duration.ofSeconds(30).toNanos(),
              Duration.ofMillis(100));
      if (!ready) {
        throw new IllegalStateException("Topic " + topic + " has no leader after 30 s");
      }
    }
  }

  // ---- helpers ----

  void appendRows(DSLContext tx, int n) {
    for (int i = 0; i < n; i++) {
      outbox.append(tx, event());
    }
  }

  static OutboxEvent event() {
    return new OutboxEvent(
        AGGREGATE, "bench-" + ThreadLocalRandom.current().nextInt(1000), "OrderPlaced", PAYLOAD);
  }

  /** Checks {@code condition} until it holds or the deadline passes; true when it held. */
  static boolean waitFor(BooleanSupplier condition, long deadlineNanos, Duration every)
      throws InterruptedException {
    long pause = Math.max(every.toNanos(), TimeUnit.MILLISECONDS.toNanos(20));
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() >= deadlineNanos) {
        return false;
      }
      TimeUnit.NANOSECONDS.sleep(pause);
    }
    return true;
  }

  static void sleepUntil(long nanos) throws InterruptedException {
    long wait = nanos - System.nanoTime();
    if (wait > 0) {
      TimeUnit.NANOSECONDS.sleep(wait);
    }
  }
}
