package dev.ordinal.lab.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.messaging.outbox.OutboxEvent;
import dev.ordinal.relay.ConnectorConfig;
import dev.ordinal.relay.RelayConfig;
import dev.ordinal.testkit.ConnectWorker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The outbox on Kafka Connect next to the embedded relay and the raw outbox insert rate, in one
 * run: each round writes one backlog of outbox rows (writers flat out, multi-row commits: the
 * insert rate, the limit) after making three slots on it, then drains it from each slot in turn, in
 * a rotated order: (a) Debezium on a Connect worker with exactly-once source support and the
 * configuration {@link ConnectorConfig} generates, (b) the same connector on a worker with
 * exactly-once disabled and without {@code exactly.once.support} and {@code transaction.boundary},
 * (c) the embedded CDC relay in a JVM of its own ({@link RelayProcess}). Each drain's events/s:
 * records from the first on its topic to the last, read with {@code read_committed}. The first
 * round is a warm-up for the workers, not counted.
 */
public final class ConnectBench {
  static final Duration BOUND = Duration.ofMinutes(3);
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * How much to measure.
   *
   * @param events rows in each round's backlog
   * @param writers closed-loop writers of the backlog
   * @param rowsPerTx rows per transaction of the backlog
   * @param rounds measured rounds (medians reported), after one warm-up round of {@code events / 4}
   */
  public record Settings(int events, int writers, int rowsPerTx, int rounds) {
    /** About 4 minutes on two busy cores (load average 10 to 15), the workers' start included. */
    public static final Settings DEFAULT = new Settings(30_000, 8, 50, 3);

    /** Under 2 minutes on two busy cores: indicative figures only. */
    public static final Settings QUICK = new Settings(10_000, 8, 50, 1);
  }

  /** The three ways of draining the backlog. */
  enum Drainer {
    CONNECT_EOS("eos", "Kafka Connect, exactly-once (KIP-618, a transaction per poll)"),
    CONNECT("plain", "Kafka Connect, exactly-once off"),
    RELAY("relay", "embedded CDC relay (OutboxRelay, a JVM of its own)");

    final String tag;
    final String label;

    Drainer(String tag, String label) {
      this.tag = tag;
      this.label = label;
    }
  }

  /**
   * One round: the backlog's insert rate and each drain.
   *
   * @param insertRate rows per second the writers committed the backlog at
   * @param loadAverage the machine's 1-minute load average as the round started (NaN when it is not
   *     readable): processes other than the bench's share these cores
   */
  public record Round(double insertRate, Map<Drainer, Drain> drains, double loadAverage) {}

  /**
   * One drain of the backlog.
   *
   * @param rate records per second from the first on the topic to the last
   * @param firstAfter from the connector's creation (or the relay process's start) to its first
   *     record on the topic
   * @param records records on the topic (read_committed) once the backlog's count was reached
   */
  public record Drain(double rate, Duration firstAfter, long records) {}

  /** Everything measured; the first round is the warm-up. */
  public record Report(Settings settings, List<Round> rounds) {
    List<Round> measured() {
      return rounds.subList(1, rounds.size());
    }

    double insertMedian() {
      return OrderWriteBench.median(measured().stream().map(Round::insertRate).toList());
    }

    double median(Drainer d) {
      return OrderWriteBench.median(
          measured().stream().map(r -> r.drains().get(d).rate()).toList());
    }

    /** The median over rounds of each round's exactly-once / exactly-once-off. */
    double eosCost() {
      return OrderWriteBench.median(
          measured().stream()
              .map(
                  r ->
                      r.drains().get(Drainer.CONNECT_EOS).rate()
                          / r.drains().get(Drainer.CONNECT).rate())
              .toList());
    }
  }

  private final BenchTarget on;
  private final Settings s;
  private final Outbox outbox = new Outbox(Clock.systemUTC());
  private final Map<Drainer, ConnectWorker> workers;

  private ConnectBench(BenchTarget on, Settings s, Map<Drainer, ConnectWorker> workers) {
    this.on = on;
    this.s = s;
    this.workers = workers;
  }

  /**
   * Starts the two workers (their properties and output in {@code files}), runs the warm-up round
   * and the measured ones, and stops the workers.
   */
  public static Report run(
      DatabaseSettings db, String bootstrap, Path files, Settings s, Consumer<String> progress)
      throws Exception {
    String run = Long.toString(System.currentTimeMillis(), 36);
    progress.accept("starting two Connect workers (exactly-once enabled, disabled) ...");
    CompletableFuture<ConnectWorker> eos = worker(bootstrap, files, run, true, db);
    CompletableFuture<ConnectWorker> plain = worker(bootstrap, files, run, false, db);
    try (BenchTarget on = BenchTarget.open(db, bootstrap, progress, "bench-connect-admin");
        ConnectWorker eosWorker = eos.join();
        ConnectWorker plainWorker = plain.join()) {
      ConnectBench bench =
          new ConnectBench(
              on, s, Map.of(Drainer.CONNECT_EOS, eosWorker, Drainer.CONNECT, plainWorker));
      List<Round> rounds = new ArrayList<>();
      for (int r = 0; r <= s.rounds(); r++) {
        rounds.add(bench.round(r));
      }
      return new Report(s, rounds);
    } finally {
      // a worker that started after the other failed
      for (CompletableFuture<ConnectWorker> w : List.of(eos, plain)) {
        if (!w.isCompletedExceptionally()) {
          w.join().close();
        }
      }
    }
  }

  private static CompletableFuture<ConnectWorker> worker(
      String bootstrap, Path files, String run, boolean exactlyOnce, DatabaseSettings db) {
    String name = "bench-connect-" + run + (exactlyOnce ? "-eos" : "-plain");
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return ConnectWorker.start(
                bootstrap, name, files.resolve(name), db.effectivePassword(), exactlyOnce);
          } catch (Exception e) {
            throw new IllegalStateException(e.getMessage(), e);
          }
        });
  }

  /** Round {@code r} (0: the warm-up, a quarter of the backlog). */
  private Round round(int r) throws Exception {
    boolean warmup = r == 0;
    double load = loadAverage();
    int events = warmup ? warmupEvents(s) : s.events();
    String schema = "bench_connect_" + (warmup ? "warmup" : Integer.toString(r));
    List<Drainer> order = new ArrayList<>(List.of(Drainer.values()));
    Collections.rotate(order, -r);
    cleanup(schema);
    try {
      Migrations.applyOutbox(on.adminPool(), schema);
      for (Drainer d : order) {
        String slot = slot(schema, d);
        // a slot of its own for each, made before the backlog is written: each streams it all
        on.admin()
            .execute(
                "create publication {0} for table {1}", DSL.name(slot), DSL.name(schema, "outbox"));
        on.admin()
            .execute("select pg_create_logical_replication_slot({0}, 'pgoutput')", DSL.val(slot));
        Topics.ensure(on.bootstrap(), slot + "." + RelayBench.AGGREGATE, RelayBench.PARTITIONS);
      }
      double insertRate = writeBacklog(schema, events);
      on.progress(
          String.format(
              "%s: %,d rows written at %,.0f rows/s (%d writers, %d rows per commit)",
              warmup ? "warm-up (not counted)" : "round " + r,
              events,
              insertRate,
              s.writers(),
              s.rowsPerTx()));
      Map<Drainer, Drain> drains = new LinkedHashMap<>();
      for (Drainer d : order) {
        Drain drain = drain(schema, d, events);
        on.progress(
            String.format(
                "  %s: %,.0f events/s (%.2f of the insert rate); first record %.1f s after the"
                    + " start; %,d records",
                d.label,
                drain.rate(),
                drain.rate() / insertRate,
                drain.firstAfter().toMillis() / 1000.0,
                drain.records()));
        drains.put(d, drain);
      }
      Map<Drainer, Drain> inOrder = new LinkedHashMap<>();
      for (Drainer d : Drainer.values()) {
        inOrder.put(d, drains.get(d));
      }
      return new Round(insertRate, inOrder, load);
    } finally {
      cleanup(schema);
    }
  }

  /** The first field of {@code /proc/loadavg}, or NaN. */
  static double loadAverage() {
    try {
      return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  private static String slot(String schema, Drainer d) {
    return schema + "_" + d.tag;
  }

  /** Writes {@code events} rows with the writers flat out; rows per second. */
  private double writeBacklog(String schema, int events) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(s.writers());
    try (HikariDataSource ds = on.db().withSchema(schema).pool(schema + "-writers", s.writers())) {
      DSLContext dsl = DSL.using(ds, SQLDialect.POSTGRES);
      AtomicInteger left = new AtomicInteger(events);
      List<Callable<Void>> writers = new ArrayList<>();
      for (int w = 0; w < s.writers(); w++) {
        writers.add(
            () -> {
              int rows;
              while ((rows = take(left, s.rowsPerTx())) > 0) {
                int n = rows;
                dsl.transaction(
                    c -> {
                      for (int i = 0; i < n; i++) {
                        outbox.append(
                            c.dsl(),
                            new OutboxEvent(
                                RelayBench.AGGREGATE,
                                "bench-" + (left.get() + i) % 1000,
                                "OrderPlaced",
                                RelayBench.PAYLOAD));
                      }
                    });
              }
              return null;
            });
      }
      long t0 = System.nanoTime();
      for (Future<Void> f : pool.invokeAll(writers)) {
        f.get();
      }
      return events / ((System.nanoTime() - t0) / 1e9);
    } finally {
      pool.shutdownNow();
    }
  }

  /** Takes up to {@code most} of what is left; 0 when nothing is. */
  private static int take(AtomicInteger left, int most) {
    int before = left.getAndAccumulate(most, (l, m) -> Math.max(0, l - m));
    return Math.min(before, most);
  }

  /** Drains the backlog from {@code d}'s slot and stops it. */
  private Drain drain(String schema, Drainer d, int events) throws Exception {
    String slot = slot(schema, d);
    String topic = slot + "." + RelayBench.AGGREGATE;
    ExecutorService reader = Executors.newSingleThreadExecutor();
    try {
      long start = System.nanoTime();
      // reading from before the start: RelayProcess.start returns once the relay streams, and by
      // then it may have published much of the backlog
      Future<Drain> counted =
          reader.submit(
              () -> {
                try (KafkaConsumer<byte[], byte[]> consumer = readCommitted(topic)) {
                  return count(consumer, events, start);
                }
              });
      try (AutoCloseable running = start(schema, slot, d)) {
        return counted.get();
      }
    } finally {
      reader.shutdownNow();
      awaitSlotIdle(slot);
    }
  }

  /** Starts {@code d} on {@code slot}; closing it deletes the connector, or stops the relay. */
  private AutoCloseable start(String schema, String slot, Drainer d) throws Exception {
    if (d == Drainer.RELAY) {
      return RelayProcess.start(
          on.db().withSchema(schema),
          on.bootstrap(),
          schema,
          slot,
          slot,
          RelayConfig.DEFAULT_POLL_INTERVAL,
          null);
    }
    RelayConfig config =
        RelayConfig.builder(on.db().withSchema(schema), on.bootstrap(), schema, slot)
            // kept when the task stops, as connect-config has it; cleanup drops it
            .slot(slot, slot, false)
            // the topic exists already (Topics.ensure); Connect would not cap this by the brokers
            .topicDurability(new Topics.Durability(1, 1))
            .build();
    Map<String, String> connector = new LinkedHashMap<>(ConnectorConfig.of(config));
    if (d == Drainer.CONNECT) {
      connector.remove("exactly.once.support");
      connector.remove("transaction.boundary");
    }
    String name = ConnectorConfig.name(config);
    ConnectWorker worker = workers.get(d);
    int status = worker.create(JSON.writeValueAsString(Map.of("name", name, "config", connector)));
    if (status != 201) {
      throw new IllegalStateException(
          "POST /connectors answered " + status + " (the worker's output: " + worker.log() + ")");
    }
    return () -> worker.request("DELETE", "/connectors/" + name, null);
  }

  private KafkaConsumer<byte[], byte[]> readCommitted(String topic) {
    KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                on.bootstrap(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed"),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer());
    List<TopicPartition> partitions =
        IntStream.range(0, RelayBench.PARTITIONS)
            .mapToObj(p -> new TopicPartition(topic, p))
            .toList();
    c.assign(partitions);
    c.seekToBeginning(partitions);
    return c;
  }

  /**
   * Reads until {@code events} records came: the rate from the first poll that brought any (its
   * records not counted) to the last.
   */
  private static Drain count(KafkaConsumer<byte[], byte[]> consumer, int events, long start) {
    long deadline = start + BOUND.toNanos();
    long seen = 0;
    long firstCount = 0;
    long first = 0;
    while (seen < events) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "only " + seen + " of " + events + " records within " + BOUND.toMinutes() + " min");
      }
      int n = consumer.poll(Duration.ofMillis(50)).count();
      if (n > 0 && seen == 0) {
        first = System.nanoTime();
        firstCount = n;
      }
      seen += n;
    }
    long last = System.nanoTime();
    return new Drain(
        (seen - firstCount) / Math.max((last - first) / 1e9, 1e-3),
        Duration.ofNanos(first - start),
        seen);
  }

  /** Waits (30 s at most) until no one streams from {@code slot}, so cleanup can drop it. */
  private void awaitSlotIdle(String slot) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() - deadline < 0
        && on.admin()
            .fetchExists(
                DSL.selectOne()
                    .from(DSL.table(DSL.name("pg_catalog", "pg_replication_slots")))
                    .where(DSL.field(DSL.name("slot_name"), String.class).eq(slot))
                    .and(DSL.field(DSL.name("active"), Boolean.class).isTrue()))) {
      Thread.sleep(100);
    }
  }

  /** Drops the round's slots, publications and schema (also what an interrupted run left). */
  private void cleanup(String schema) {
    for (Drainer d : Drainer.values()) {
      RelayStage.dropRelayed(on.admin(), slot(schema, d));
    }
    RelayStage.dropRelayed(on.admin(), schema);
  }

  // ---- the report ----

  /** The section: each drain's median next to the insert rate, and exactly-once's cost. */
  public static List<String> markdown(Report r, String when) {
    Settings s = r.settings();
    List<String> md =
        BenchReport.section("## Kafka Connect next to the embedded relay (" + when + ")");
    md.add(
        String.format(
            "Each round writes a backlog of %,d outbox rows (%d writers flat out, %d rows per"
                + " commit: the insert rate, the limit) after making a slot of its own for each"
                + " path below, then each path drains the whole backlog from its slot, in an order"
                + " rotated each round. events/s: the records read (read_committed) from the first"
                + " on the path's topic to the last. Both Connect workers run throughout and"
                + " Debezium's configuration is the relay's (ConnectorConfig); the relay's JVM is"
                + " started for each drain. One warm-up round of %,d rows first, not counted;"
                + " %d measured round(s), medians.",
            s.events(), s.writers(), s.rowsPerTx(), warmupEvents(s), s.rounds()));
    md.add("");
    md.add("| path | events/s | ratio to the insert rate | first record after (s) | rounds |");
    md.add("|---|---:|---:|---:|---|");
    double limit = r.insertMedian();
    md.add(
        String.format(
            "| outbox insert, %d rows per commit (the limit) | %,.0f | 1.00 | | %s |",
            s.rowsPerTx(), limit, rounds(r.measured().stream().map(Round::insertRate).toList())));
    for (Drainer d : Drainer.values()) {
      List<Drain> drains = r.measured().stream().map(x -> x.drains().get(d)).toList();
      md.add(
          String.format(
              "| %s | %,.0f | %.2f | %.1f | %s |",
              d.label,
              r.median(d),
              r.median(d) / limit,
              OrderWriteBench.median(
                  drains.stream().map(x -> x.firstAfter().toMillis() / 1000.0).toList()),
              rounds(drains.stream().map(Drain::rate).toList())));
    }
    md.add("");
    md.add(
        String.format(
            "The throughput cost of exactly-once on Connect: exactly-once / exactly-once off ="
                + " %.2f (the median of each round's ratio). Records on each topic once its count"
                + " was reached: %s. The machine's load average as each measured round started:"
                + " %s.",
            r.eosCost(),
            r.measured().stream()
                .flatMap(x -> x.drains().values().stream())
                .map(x -> String.format("%,d", x.records()))
                .distinct()
                .toList(),
            r.measured().stream().map(x -> String.format("%.1f", x.loadAverage())).toList()));
    return md;
  }

  static int warmupEvents(Settings s) {
    return Math.max(1_000, s.events() / 4);
  }

  private static String rounds(List<Double> values) {
    return values.stream().map(v -> String.format("%,.0f", v)).toList().toString();
  }
}
