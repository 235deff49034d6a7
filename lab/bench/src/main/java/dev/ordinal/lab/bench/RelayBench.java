package dev.ordinal.lab.bench;

import com.sun.management.OperatingSystemMXBean;
import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.messaging.outbox.OutboxEvent;
import dev.ordinal.relay.OutboxRelay;
import dev.ordinal.relay.PollingRelay;
import dev.ordinal.relay.PollingRelayConfig;
import dev.ordinal.relay.RelayConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The relays measured against the raw outbox insert rate of the same PostgreSQL and broker, in one
 * run: (1) outbox insert rate, single-row and multi-row commits; (2) the CDC relay's sustained
 * events/s while writers commit multi-row transactions flat out; (3) commit → consumer receive
 * latency at a fixed open-loop rate for the CDC relay and the polling relay at two intervals; (4)
 * the transactions per second and the database CPU each relay costs while nothing is written, above
 * a baseline with no relay. Each measurement has its own schema, topic prefix, slot and
 * publication, dropped afterwards, so none sees another's rows or pays for their vacuum.
 */
public final class RelayBench {
  static final String AGGREGATE = "order";
  static final int PARTITIONS = Topics.DEFAULT_PARTITIONS;
  static final String PAYLOAD =
      "{\"orderId\":\"" + UUID.randomUUID() + "\",\"customerId\":\"bench\",\"total\":\"9.99\"}";
  // open-loop writers: enough that one slow durable commit does not hold the next event back
  static final int LATENCY_WRITERS = 4;
  // before an idle window, after vacuum and checkpoint: the relay's offsets flush, its polls go
  // empty, and its sessions flush their statistics (at most once a second)
  static final Duration SETTLE = Duration.ofSeconds(2);

  // a session that goes idle keeps statistics it could not flush (at most one flush a second) for
  // up to 10 s: an idle window starts this long after the relay started, or its start-up queries
  // would be counted as idle cost
  static final Duration STATS_FLUSH_DELAY = Duration.ofSeconds(11);
  static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(60);
  static final Duration STREAMING_TIMEOUT = Duration.ofSeconds(60);

  /**
   * How to run.
   *
   * @param clients closed-loop writers for the insert rates and the CDC throughput
   * @param rowsPerTx rows per multi-row transaction
   * @param rounds insert-rate rounds (single and multi interleaved); medians are reported
   * @param rate events per second of the latency runs (one event per transaction, open loop)
   * @param highRate the CDC relay's second latency rate, at each of its poll intervals
   * @param fastPollInterval the polling relay's fastest sensible interval
   * @param relayWarmup how long the CDC relay's own JVM runs at {@code highRate} before its latency
   *     is measured (not measured itself): a fresh JVM interprets and compiles for its first
   *     seconds, and its backlog meanwhile shows as seconds of latency
   * @param cdcPollIntervals the CDC relay's {@code poll.interval.ms} values: latency at both rates
   *     and idle cost at each
   * @param idle the window of each idle measurement, and of the baseline
   * @param capacityStep how long each open-loop rate of the capacity runs lasts (and the insert
   *     rate measured alone before them)
   */
  public record Settings(
      int clients,
      int rowsPerTx,
      int rounds,
      Duration insertWarmup,
      Duration insertMeasure,
      Duration throughputWarmup,
      Duration throughputWindow,
      int rate,
      int highRate,
      Duration latencyWarmup,
      Duration latencyMeasure,
      Duration relayWarmup,
      Duration defaultPollInterval,
      Duration fastPollInterval,
      List<Duration> cdcPollIntervals,
      Duration idle,
      Duration capacityStep) {

    /** The CDC relay's {@code poll.interval.ms} values compared (its default among them). */
    public static final List<Duration> CDC_POLL_INTERVALS =
        List.of(Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofMillis(10));

    /** About three minutes on two cores, stack start included. */
    public static final Settings DEFAULT =
        new Settings(
            8,
            50,
            3,
            Duration.ofSeconds(2),
            Duration.ofSeconds(3),
            Duration.ofSeconds(10),
            Duration.ofSeconds(15),
            200,
            1000,
            Duration.ofSeconds(3),
            Duration.ofSeconds(15),
            Duration.ofSeconds(20),
            PollingRelayConfig.DEFAULT_POLL_INTERVAL,
            Duration.ofMillis(50),
            CDC_POLL_INTERVALS,
            Duration.ofSeconds(10),
            Duration.ofSeconds(30));

    /** About a minute and a quarter: indicative figures only. */
    public static final Settings QUICK =
        new Settings(
            8,
            50,
            1,
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            Duration.ofSeconds(3),
            Duration.ofSeconds(4),
            200,
            1000,
            Duration.ofSeconds(1),
            Duration.ofSeconds(4),
            Duration.ofSeconds(10),
            PollingRelayConfig.DEFAULT_POLL_INTERVAL,
            Duration.ofMillis(50),
            CDC_POLL_INTERVALS,
            Duration.ofSeconds(4),
            Duration.ofSeconds(5));
  }

  /** Rows per second of outbox inserts through {@link Outbox#append}. */
  public record InsertRate(String name, int rowsPerTx, double median, List<Double> rounds) {}

  /**
   * The CDC relay under writers running flat out.
   *
   * @param relayRate Kafka acknowledgements per second over the window (steady state after warm-up)
   * @param writerRate rows committed per second over the same window, with the relay running
   * @param drainRate acknowledgements per second from the end of the window until the backlog was
   *     gone (or the drain timeout), the writers stopped
   */
  public record Throughput(
      double relayRate,
      double writerRate,
      long backlogAtStart,
      long backlogAtEnd,
      double drainRate,
      Duration drainTime,
      boolean drained) {}

  /**
   * Commit → consumer receive of one relay, and what it costs while idle.
   *
   * @param missing events of the measured window not received within the wait
   * @param early events received before their writer's commit call returned (recorded as 0)
   * @param idle transactions and CPU per second while idle, baseline not subtracted
   * @param relayCpuPercent the relay process's own CPU while idle, in percent of one core (null
   *     when the relay runs in the bench's JVM)
   */
  public record RelayRun(
      String relay,
      int rate,
      boolean reference,
      long events,
      long missing,
      long early,
      double p50Ms,
      double p99Ms,
      double maxMs,
      DatabaseLoad.Rate idle,
      Double relayCpuPercent,
      Split split) {
    RelayRun withIdle(DatabaseLoad.Rate rate, Double relayCpu) {
      return new RelayRun(
          relay, this.rate, reference, events, missing, early, p50Ms, p99Ms, maxMs, rate, relayCpu,
          split);
    }
  }

  /**
   * Where a run's latency went, split at the relay's send: the record's timestamp, which both
   * relays leave to the moment they hand the record to their producer (whole epoch milliseconds,
   * taken as their middle, so each part is within half a millisecond). Before it: PostgreSQL's
   * logical decoding, the walsender, Debezium's streaming loop and queue (or the polling relay's
   * poll), the router and the converters; after it: the producer, the broker's append and
   * replication, the consumer's fetch.
   *
   * @param slowest the events at or above the run's p99
   * @param slowestBeforeMs their mean time from the commit call returning to the relay's send
   * @param slowestAfterMs their mean time from the relay's send to the consumer receiving them
   */
  public record Split(
      double beforeP50Ms,
      double beforeP99Ms,
      double afterP50Ms,
      double afterP99Ms,
      long slowest,
      double slowestBeforeMs,
      double slowestAfterMs) {}

  /** Everything measured; {@code database} holds the server's version and durability settings. */
  public record Report(
      Map<String, String> database,
      Settings settings,
      List<InsertRate> inserts,
      Throughput throughput,
      DatabaseLoad.Rate baseline,
      List<RelayRun> runs,
      List<Capacity> capacity,
      List<String> capacityNotes) {}

  /**
   * One open-loop rate of a capacity run.
   *
   * @param offered rows per second the writers were asked for
   * @param committed rows per second they committed
   * @param backlogStart rows committed and not yet in Kafka when the rate started
   * @param backlogEnd the same when it ended
   * @param flat whether the backlog grew by at most one second of the offered rate
   */
  public record CapacityStep(
      double offered, double committed, long backlogStart, long backlogEnd, boolean flat) {}

  /**
   * The relay's capacity in one layout of the cores.
   *
   * @param layout how the processes were placed on the cores
   * @param insertAlone rows per second the writers committed flat out with no relay running
   */
  public record Capacity(String layout, double insertAlone, List<CapacityStep> steps) {

    /**
     * The highest committed rate of a flat step (0 when none). Not the last flat step's: a higher
     * offer can commit less than a lower one did (the writers, not the relay, falling short).
     */
    public double highestFlat() {
      return steps.stream()
          .filter(CapacityStep::flat)
          .mapToDouble(CapacityStep::committed)
          .max()
          .orElse(0);
    }
  }

  /** The open-loop rates of a capacity run, as fractions of the insert rate measured alone. */
  static final List<Double> CAPACITY_FRACTIONS = List.of(0.2, 0.4, 0.6, 0.8, 1.0);

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

  private final BenchTarget on;
  private final Settings s;
  private final DatabaseLoad load;
  private final Outbox outbox = new Outbox(Clock.systemUTC());

  private RelayBench(BenchTarget on, Settings s, DatabaseLoad load) {
    this.on = on;
    this.s = s;
    this.load = load;
  }

  /**
   * Runs every measurement in turn on {@code db} (a role that may create schemas, publications and
   * replication slots) and the broker at {@code bootstrap}.
   */
  public static Report run(
      DatabaseSettings db, String bootstrap, Settings s, Consumer<String> progress)
      throws Exception {
    try (BenchTarget on = BenchTarget.open(db, bootstrap, progress, "bench-relay-admin");
        DatabaseLoad load = new DatabaseLoad(db)) {
      return new RelayBench(on, s, load).all();
    }
  }

  private Report all() throws Exception {
    Map<String, String> database = new LinkedHashMap<>();
    for (String name :
        List.of(
            "server_version",
            "fsync",
            "synchronous_commit",
            "full_page_writes",
            "wal_writer_delay")) {
      database.put(
          name,
          on.admin().fetchValue(DSL.field("current_setting({0})", String.class, DSL.val(name))));
    }
    on.progress(
        "PostgreSQL "
            + database
            + (load.seesCpu() ? "; its CPU is read from /proc" : "; its CPU is not visible here"));
    List<InsertRate> inserts = insertRates();
    Throughput throughput = throughput();
    on.progress("baseline: " + s.idle().toSeconds() + " s idle with no relay running ...");
    quiesce(System.nanoTime());
    DatabaseLoad.Rate baseline = load.measure(s.idle());
    on.progress(String.format("baseline: %s", describe(baseline)));
    List<RelayRun> runs = new ArrayList<>();
    // the CDC relay at each poll interval: latency at both rates, idle cost once (it does not
    // depend on the rate); the default interval at the base rate is the polling relay's reference
    for (Duration poll : s.cdcPollIntervals()) {
      boolean isDefault = poll.equals(RelayConfig.DEFAULT_POLL_INTERVAL);
      String label =
          "CDC relay (Debezium, poll "
              + poll.toMillis()
              + " ms"
              + (isDefault ? " (default)" : "")
              + ", heartbeat "
              + RelayConfig.DEFAULT_HEARTBEAT_INTERVAL.toSeconds()
              + " s)";
      runs.addAll(
          cdcLatencyRuns(label, new Namespace("lat_cdc_" + poll.toMillis()), poll, isDefault));
    }
    for (Duration interval : List.of(s.defaultPollInterval(), s.fastPollInterval())) {
      String label =
          "polling relay (ordered per aggregate), "
              + interval.toMillis()
              + " ms"
              + (interval.equals(PollingRelayConfig.DEFAULT_POLL_INTERVAL) ? " (default)" : "");
      runs.add(
          latencyRun(
              label,
              new Namespace("lat_poll_" + interval.toMillis()),
              ns -> startPolling(ns, interval),
              interval,
              s.rate(),
              false,
              true));
    }
    // last: it pins processes to cores, and nothing measured after it should inherit that
    List<String> capacityNotes = new ArrayList<>();
    List<Capacity> capacity = new ArrayList<>();
    capacity.add(capacity("shared", null, null, capacityNotes));
    if (Runtime.getRuntime().availableProcessors() >= 2 && CorePinning.available()) {
      capacity.add(
          capacity(
              "split: relay and broker on core 0, PostgreSQL and the writers on core 1",
              "0",
              "1",
              capacityNotes));
    } else {
      capacityNotes.add(
          "The split layout was not measured: it needs 2 cores and `taskset` (util-linux).");
    }
    return new Report(database, s, inserts, throughput, baseline, runs, capacity, capacityNotes);
  }

  // ---- 1. raw outbox insert rate ----

  private List<InsertRate> insertRates() throws Exception {
    Namespace ns = new Namespace("insert");
    prepare(ns, false);
    try (HikariDataSource pool =
        on.db().withSchema(ns.schema()).pool("bench-relay-insert", s.clients() + 2)) {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      Map<String, Integer> rows = new LinkedHashMap<>();
      Map<String, OrderWriteBench.Op> ops = new LinkedHashMap<>();
      String single = "outbox insert, single-row commits";
      String multi = "outbox insert, multi-row commits (" + s.rowsPerTx() + " rows/tx)";
      rows.put(single, 1);
      rows.put(multi, s.rowsPerTx());
      ops.put(single, () -> dsl.transaction(c -> outbox.append(c.dsl(), event())));
      ops.put(multi, () -> dsl.transaction(c -> appendRows(c.dsl(), s.rowsPerTx())));
      OrderWriteBench.Settings loop =
          new OrderWriteBench.Settings(s.clients(), s.insertWarmup(), s.insertMeasure(), 1);
      Map<String, List<Double>> rates =
          OrderWriteBench.rounds(
              ops,
              s.rounds(),
              "rows/s",
              on.progress(),
              (name, op) -> OrderWriteBench.measure(op, loop) * rows.get(name));
      List<InsertRate> result = new ArrayList<>();
      rates.forEach(
          (name, r) ->
              result.add(
                  new InsertRate(name, rows.get(name), OrderWriteBench.median(r), List.copyOf(r))));
      return result;
    } finally {
      cleanup(ns);
    }
  }

  // ---- 2. CDC relay throughput ----

  private Throughput throughput() throws Exception {
    Namespace ns = new Namespace("cdc_throughput");
    prepare(ns, true);
    on.progress("CDC throughput: starting the relay ...");
    ExecutorService writers = Executors.newFixedThreadPool(s.clients());
    try (HikariDataSource pool =
            on.db().withSchema(ns.schema()).pool("bench-relay-throughput", s.clients() + 2);
        OutboxRelay relay = startCdc(ns, RelayConfig.DEFAULT_POLL_INTERVAL)) {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      AtomicBoolean stop = new AtomicBoolean();
      LongAdder written = new LongAdder();
      List<Future<?>> running = new ArrayList<>();
      long start = System.nanoTime();
      for (int i = 0; i < s.clients(); i++) {
        running.add(
            writers.submit(
                () -> {
                  while (!stop.get()) {
                    dsl.transaction(c -> appendRows(c.dsl(), s.rowsPerTx()));
                    written.add(s.rowsPerTx());
                  }
                  return null;
                }));
      }
      on.progress(
          String.format(
              "CDC throughput: %d writers, %d-row transactions, %d s warm-up then %d s measured",
              s.clients(),
              s.rowsPerTx(),
              s.throughputWarmup().toSeconds(),
              s.throughputWindow().toSeconds()));
      sleepUntil(start + s.throughputWarmup().toNanos());
      long t0 = System.nanoTime();
      long w0 = written.sum();
      long r0 = relay.relayed();
      sleepUntil(t0 + s.throughputWindow().toNanos());
      long t1 = System.nanoTime();
      long w1 = written.sum();
      long r1 = relay.relayed();
      stop.set(true);
      for (Future<?> f : running) {
        f.get();
      }
      long total = written.sum();
      boolean drained =
          waitFor(() -> relay.relayed() >= total, t1 + DRAIN_TIMEOUT.toNanos(), Duration.ZERO);
      long t2 = System.nanoTime();
      long r2 = relay.relayed();
      double window = (t1 - t0) / 1e9;
      Throughput t =
          new Throughput(
              (r1 - r0) / window,
              (w1 - w0) / window,
              w0 - r0,
              w1 - r1,
              (r2 - r1) / Math.max((t2 - t1) / 1e9, 1e-3),
              Duration.ofNanos(t2 - t1),
              drained);
      on.progress(
          String.format(
              "CDC throughput: relay %,.0f events/s, writers %,.0f rows/s; backlog %,d -> %,d;"
                  + " drained %s in %.1f s at %,.0f events/s",
              t.relayRate(),
              t.writerRate(),
              t.backlogAtStart(),
              t.backlogAtEnd(),
              drained ? "all" : "NOT all (" + (total - r2) + " left)",
              t.drainTime().toMillis() / 1000.0,
              t.drainRate()));
      return t;
    } finally {
      writers.shutdownNow();
      cleanup(ns);
    }
  }

  // ---- 2b. CDC relay capacity: writers in a process of their own, open loop, stepped ----

  /**
   * The writers run in a JVM of their own ({@link OutboxWriterProcess}) and the relay in another
   * ({@link RelayProcess}). First the writers alone, flat out, give the insert rate; then with the
   * relay streaming they write open loop at rising fractions of it, one step at a time, until the
   * backlog (rows committed minus records in Kafka) grows by more than one second of the offered
   * rate over a step. With {@code relayCore} and {@code dbCore}, the bench's JVM (the broker) and
   * the relay are pinned to one core and PostgreSQL and the writers to the other, as separate hosts
   * would be.
   */
  private Capacity capacity(String layout, String relayCore, String dbCore, List<String> notes)
      throws Exception {
    Namespace ns = new Namespace("capacity_" + (relayCore == null ? "shared" : "split"));
    prepare(ns, true);
    String tag = "CDC capacity (" + layout + "): ";
    CorePinning pinning =
        relayCore == null
            ? CorePinning.none()
            : CorePinning.split(
                ProcessHandle.current().pid(), relayCore, load.postgresPids(), dbCore);
    try {
      on.progress(tag + "writers alone, flat out, " + s.capacityStep().toSeconds() + " s ...");
      OutboxWriterProcess.Done alone =
          OutboxWriterProcess.run(
              on.db(), ns.schema(), s.rowsPerTx(), s.clients(), 0, s.capacityStep(), dbCore);
      double limit = alone.rowsPerSecond();
      on.progress(tag + String.format("insert rate alone %,.0f rows/s", limit));
      List<CapacityStep> steps = new ArrayList<>();
      try (RelayProcess relay =
              startRelayProcess(ns, RelayConfig.DEFAULT_POLL_INTERVAL, relayCore);
          TopicCount topic = new TopicCount(on.bootstrap(), ns.topic())) {
        long written = 0;
        for (double fraction : CAPACITY_FRACTIONS) {
          long before = written;
          // start each rate from an empty backlog (bounded wait)
          waitFor(
              () -> topic.records() >= before,
              System.nanoTime() + DRAIN_TIMEOUT.toNanos(),
              Duration.ofMillis(200));
          long backlogStart = before - topic.records();
          double offered = limit * fraction;
          OutboxWriterProcess.Done d =
              OutboxWriterProcess.run(
                  on.db(),
                  ns.schema(),
                  s.rowsPerTx(),
                  s.clients(),
                  offered,
                  s.capacityStep(),
                  dbCore);
          written += d.rows();
          long backlogEnd = written - topic.records();
          boolean flat = backlogEnd - backlogStart <= offered;
          CapacityStep step =
              new CapacityStep(offered, d.rowsPerSecond(), backlogStart, backlogEnd, flat);
          steps.add(step);
          on.progress(
              tag
                  + String.format(
                      "offered %,.0f rows/s (%.0f%%), committed %,.0f; backlog %,d -> %,d: %s",
                      offered,
                      fraction * 100,
                      d.rowsPerSecond(),
                      backlogStart,
                      backlogEnd,
                      flat ? "flat" : "growing"));
          if (!flat) {
            break;
          }
        }
      }
      return new Capacity(layout, limit, steps);
    } finally {
      if (!pinning.undo()) {
        notes.add("Undoing the core pinning of " + layout + " failed for some processes.");
      }
      cleanup(ns);
    }
  }

  // ---- 3. + 4. latency at a fixed rate, then the idle cost ----

  /**
   * The CDC relay in a JVM of its own ({@link RelayProcess}): warmed up for {@link
   * Settings#relayWarmup} at the high rate (not measured), then its latency at the base rate and at
   * the high rate, then what that same process costs while idle (its CPU read from /proc).
   */
  private List<RelayRun> cdcLatencyRuns(
      String relayName, Namespace ns, Duration pollInterval, boolean reference) throws Exception {
    prepare(ns, true);
    on.progress(relayName + ": starting it in a JVM of its own ...");
    try (RelayProcess relay = startRelayProcess(ns, pollInterval, null);
        Receiver receiver = new Receiver(on.bootstrap(), ns.topic(), PARTITIONS)) {
      long started = System.nanoTime();
      receiver.awaitReady(Duration.ofSeconds(30));
      // at the high rate: a hot path profiled at the low rate alone is compiled again at the high
      // one, and that compilation would land in the measurement
      int warmRate = Math.max(s.rate(), s.highRate());
      on.progress(
          String.format(
              "%s: %d s at %d/s to warm its JVM up (not measured) ...",
              relayName, s.relayWarmup().toSeconds(), warmRate));
      Written warm = openLoop(ns, warmRate, Duration.ZERO, s.relayWarmup());
      if (!awaitReceived(receiver, warm, DRAIN_TIMEOUT)) {
        on.progress(
            relayName
                + ": the warm-up's events were not all received within "
                + DRAIN_TIMEOUT.toSeconds()
                + " s; measuring anyway");
      }
      RelayRun base = measure(relayName, ns, receiver, s.rate(), reference, pollInterval);
      RelayRun high = measure(relayName, ns, receiver, s.highRate(), false, pollInterval);
      String label = relayName + " at " + s.rate() + "/s";
      on.progress(label + ": " + s.idle().toSeconds() + " s idle ...");
      quiesce(started + STATS_FLUSH_DELAY.toNanos());
      OptionalLong ticksBefore = relay.cpuTicks();
      DatabaseLoad.Sample before = load.sample();
      Thread.sleep(s.idle().toMillis()); // the idle window itself, not a wait for a condition
      DatabaseLoad.Sample after = load.sample();
      OptionalLong ticksAfter = relay.cpuTicks();
      DatabaseLoad.Rate idle = DatabaseLoad.between(before, after);
      Double relayCpu = null;
      if (ticksBefore.isPresent() && ticksAfter.isPresent()) {
        relayCpu =
            DatabaseLoad.cpuPercent(
                ticksAfter.getAsLong() - ticksBefore.getAsLong(),
                (after.nanos() - before.nanos()) / 1e9);
      }
      on.progress(
          label
              + ": idle "
              + describe(idle)
              + (relayCpu == null ? "" : String.format(", relay process CPU %.1f%%", relayCpu)));
      return List.of(base.withIdle(idle, relayCpu), high);
    } finally {
      cleanup(ns);
    }
  }

  /** Latency at {@code rate}: an open loop of warm-up and measured events, all received. */
  private RelayRun measure(
      String relayName,
      Namespace ns,
      Receiver receiver,
      int rate,
      boolean reference,
      Duration pollInterval)
      throws Exception {
    String label = relayName + " at " + rate + "/s";
    on.progress(label + " ...");
    Written w = openLoop(ns, rate, s.latencyWarmup(), s.latencyMeasure());
    awaitReceived(receiver, w, Duration.ofSeconds(10).plus(pollInterval.multipliedBy(4)));
    RelayRun latency = summarize(relayName, rate, reference, w, receiver);
    on.progress(
        String.format(
            "%s: p50 %.1f ms, p99 %.1f ms, max %.1f ms over %,d events (%d missing, %d"
                + " received before the commit call returned)",
            label,
            latency.p50Ms(),
            latency.p99Ms(),
            latency.maxMs(),
            latency.events(),
            latency.missing(),
            latency.early()));
    if (latency.split() != null) {
      on.progress(label + ": " + describe(latency.split()));
    }
    return latency;
  }

  /**
   * Until every event of {@code w} is received, at most {@code within}; what is missing then is
   * counted as missing by {@link #summarize}.
   */
  private static boolean awaitReceived(Receiver receiver, Written w, Duration within)
      throws InterruptedException {
    List<String> ids = java.util.Arrays.asList(w.ids());
    return waitFor(
        () -> receiver.receivedAll(ids),
        System.nanoTime() + within.toNanos(),
        Duration.ofMillis(20));
  }

  /**
   * Latency of {@code starter}'s relay (in the bench's JVM) at {@code rate}; then, when {@code
   * idleCost}, what it costs while idle.
   */
  private RelayRun latencyRun(
      String relayName,
      Namespace ns,
      RelayStarter starter,
      Duration pollInterval,
      int rate,
      boolean reference,
      boolean idleCost)
      throws Exception {
    prepare(ns, true);
    String label = relayName + " at " + rate + "/s";
    on.progress(label + ": starting ...");
    long started = System.nanoTime();
    try (AutoCloseable relay = starter.start(ns);
        Receiver receiver = new Receiver(on.bootstrap(), ns.topic(), PARTITIONS)) {
      receiver.awaitReady(Duration.ofSeconds(30));
      RelayRun latency = measure(relayName, ns, receiver, rate, reference, pollInterval);
      if (!idleCost) {
        return latency;
      }
      on.progress(label + ": " + s.idle().toSeconds() + " s idle ...");
      quiesce(started + STATS_FLUSH_DELAY.toNanos());
      DatabaseLoad.Sample before = load.sample();
      Thread.sleep(s.idle().toMillis()); // the idle window itself, not a wait for a condition
      DatabaseLoad.Sample after = load.sample();
      DatabaseLoad.Rate idle = DatabaseLoad.between(before, after);
      on.progress(label + ": idle " + describe(idle));
      return latency.withIdle(idle, null);
    } finally {
      cleanup(ns);
    }
  }

  /**
   * What the open-loop writers committed, by event index: message ids, when each commit call
   * returned ({@code System.nanoTime()}) and the same moment on the wall clock (epoch µs).
   */
  record Written(String[] ids, long[] committedAt, long[] committedAtMicros, int measuredFrom) {}

  /**
   * Commits one event per transaction at {@code rate}: event i is due at {@code start + i / rate}
   * whatever happened to the ones before it. Its own pool, closed at the end, so its sessions'
   * statistics are flushed before any idle window.
   */
  private Written openLoop(Namespace ns, int rate, Duration warmup, Duration measured)
      throws Exception {
    int warmupEvents = (int) (rate * warmup.toNanos() / 1_000_000_000L);
    int total = warmupEvents + (int) (rate * measured.toNanos() / 1_000_000_000L);
    String[] ids = new String[total];
    long[] committedAt = new long[total];
    long[] committedAtMicros = new long[total];
    double period = 1e9 / rate;
    AtomicInteger next = new AtomicInteger();
    // enough writers that a durable commit (1-4 ms here) never makes the next event late
    int writerCount = Math.max(LATENCY_WRITERS, rate / 100);
    ExecutorService writers = Executors.newFixedThreadPool(writerCount);
    try (HikariDataSource pool =
        on.db().withSchema(ns.schema()).pool("bench-relay-latency", writerCount)) {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      long start = System.nanoTime() + Duration.ofMillis(100).toNanos();
      List<Future<?>> running = new ArrayList<>();
      for (int w = 0; w < writerCount; w++) {
        running.add(
            writers.submit(
                () -> {
                  for (int i = next.getAndIncrement(); i < total; i = next.getAndIncrement()) {
                    sleepUntil(start + (long) (i * period));
                    UUID id = dsl.transactionResult(c -> outbox.append(c.dsl(), event()));
                    committedAt[i] = System.nanoTime();
                    committedAtMicros[i] = Receiver.epochMicros();
                    ids[i] = id.toString();
                  }
                  return null;
                }));
      }
      for (Future<?> f : running) {
        f.get();
      }
    } finally {
      writers.shutdownNow();
    }
    return new Written(ids, committedAt, committedAtMicros, warmupEvents);
  }

  private static RelayRun summarize(
      String label, int rate, boolean reference, Written w, Receiver receiver) {
    Histogram h = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
    Histogram before = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
    Histogram after = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
    int n = w.ids().length - w.measuredFrom();
    long[] totals = new long[n];
    long[] befores = new long[n];
    long[] afters = new long[n];
    int received = 0;
    long missing = 0;
    long early = 0;
    for (int i = w.measuredFrom(); i < w.ids().length; i++) {
      Receiver.Arrival arrival = receiver.arrival(w.ids()[i]);
      if (arrival == null) {
        missing++;
        continue;
      }
      long micros = (arrival.receivedAtNanos() - w.committedAt()[i]) / 1000;
      if (micros < 0) {
        early++;
        micros = 0;
      }
      h.recordValue(Math.min(micros, h.getHighestTrackableValue()));
      // the record's timestamp is a whole millisecond: its middle is within half of one
      long sentMicros = arrival.sentAtMillis() * 1000 + 500;
      totals[received] = micros;
      befores[received] = sentMicros - w.committedAtMicros()[i];
      afters[received] = arrival.receivedAtMicros() - sentMicros;
      before.recordValue(clamp(befores[received], before));
      after.recordValue(clamp(afters[received], after));
      received++;
    }
    return new RelayRun(
        label,
        rate,
        reference,
        h.getTotalCount(),
        missing,
        early,
        h.getValueAtPercentile(50) / 1000.0,
        h.getValueAtPercentile(99) / 1000.0,
        h.getMaxValue() / 1000.0,
        null,
        null,
        received == 0 ? null : split(h, before, after, totals, befores, afters, received));
  }

  /** The split at the relay's send of the first {@code count} events of the arrays. */
  static Split split(
      Histogram total,
      Histogram before,
      Histogram after,
      long[] totals,
      long[] befores,
      long[] afters,
      int count) {
    long tail = total.lowestEquivalentValue(total.getValueAtPercentile(99));
    long slowest = 0;
    long slowBefore = 0;
    long slowAfter = 0;
    for (int i = 0; i < count; i++) {
      if (totals[i] >= tail) {
        slowest++;
        slowBefore += befores[i];
        slowAfter += afters[i];
      }
    }
    return new Split(
        before.getValueAtPercentile(50) / 1000.0,
        before.getValueAtPercentile(99) / 1000.0,
        after.getValueAtPercentile(50) / 1000.0,
        after.getValueAtPercentile(99) / 1000.0,
        slowest,
        slowest == 0 ? 0 : slowBefore / 1000.0 / slowest,
        slowest == 0 ? 0 : slowAfter / 1000.0 / slowest);
  }

  private static long clamp(long micros, Histogram h) {
    return Math.max(0, Math.min(micros, h.getHighestTrackableValue()));
  }

  // ---- relays ----

  private OutboxRelay startCdc(Namespace ns, Duration pollInterval) throws InterruptedException {
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
  private RelayProcess startRelayProcess(Namespace ns, Duration pollInterval, String cores)
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

  private PollingRelay startPolling(Namespace ns, Duration interval) {
    return new PollingRelay(
            PollingRelayConfig.of(on.db().withSchema(ns.schema()), on.bootstrap(), ns.topicPrefix())
                .withInstanceId(ns.schema())
                .withPolling(interval, PollingRelayConfig.DEFAULT_BATCH_SIZE),
            new SimpleMeterRegistry())
        .start();
  }

  // ---- schema, topic and slot of one measurement ----

  private void prepare(Namespace ns, boolean topic) throws Exception {
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
  private void quiesce(long notBefore) throws InterruptedException {
    load.quiesce();
    sleepUntil(Math.max(System.nanoTime() + SETTLE.toNanos(), notBefore));
  }

  /** Drops what a measurement made (or an earlier, interrupted run left behind). */
  private void cleanup(Namespace ns) {
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

  private void appendRows(DSLContext tx, int n) {
    for (int i = 0; i < n; i++) {
      outbox.append(tx, event());
    }
  }

  private static OutboxEvent event() {
    return new OutboxEvent(
        AGGREGATE, "bench-" + ThreadLocalRandom.current().nextInt(1000), "OrderPlaced", PAYLOAD);
  }

  /** Checks {@code condition} until it holds or the deadline passes; true when it held. */
  private static boolean waitFor(BooleanSupplier condition, long deadlineNanos, Duration every)
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

  private static void sleepUntil(long nanos) throws InterruptedException {
    long wait = nanos - System.nanoTime();
    if (wait > 0) {
      TimeUnit.NANOSECONDS.sleep(wait);
    }
  }

  // ---- the report ----

  /** The report as Markdown: machine, settings, what was measured, figures, ratios and goals. */
  public static List<String> markdown(Report r, String stack, String when) {
    Map<String, String> pg = r.database();
    List<String> md = BenchReport.section("## Relay (" + when + ")");
    md.add(
        String.format(
            "Machine: %d cores, %,d MiB RAM, %,d MiB max heap; one JVM (%s) runs the writers, the"
                + " relays, the consumer%s. PostgreSQL %s (%s): fsync=%s, synchronous_commit=%s,"
                + " full_page_writes=%s, wal_writer_delay=%s. Topics of %d partitions; both relays"
                + " use an idempotent producer with acks=all and linger.ms=0.",
            Runtime.getRuntime().availableProcessors(),
            totalMemoryMiB(),
            Runtime.getRuntime().maxMemory() / (1024 * 1024),
            ManagementFactory.getRuntimeMXBean().getVmVersion(),
            stack.equals("embedded") ? " and the Kafka broker" : "",
            pg.get("server_version"),
            stack,
            pg.get("fsync"),
            pg.get("synchronous_commit"),
            pg.get("full_page_writes"),
            pg.get("wal_writer_delay"),
            PARTITIONS));
    md.add("");
    md.addAll(throughputTable(r));
    md.add("");
    md.addAll(capacityTable(r));
    md.add("");
    md.addAll(latencyTable(r));
    return md;
  }

  private static List<String> capacityTable(Report r) {
    List<String> md =
        BenchReport.section("### Capacity: writers in a process of their own, open loop");
    md.add(
        String.format(
            "The writers (%d threads, %d-row transactions) run in a JVM of their own and the CDC"
                + " relay in another (poll %d ms). The writers first run alone, flat out, for %d"
                + " s: the insert rate. Then, with the relay streaming, they write open loop at"
                + " %s of it, %d s each, starting each from an empty backlog; a step is flat when"
                + " the backlog (rows committed minus records in Kafka) grew by at most one"
                + " second of the offered rate. Capacity = the highest committed rate of a flat"
                + " step. Goal: >= 0.9 of the insert rate.",
            r.settings().clients(),
            r.settings().rowsPerTx(),
            RelayConfig.DEFAULT_POLL_INTERVAL.toMillis(),
            r.settings().capacityStep().toSeconds(),
            CAPACITY_FRACTIONS.stream().map(f -> Math.round(f * 100) + "%").toList(),
            r.settings().capacityStep().toSeconds()));
    md.add("");
    md.add(
        "| layout | insert rate alone (rows/s) | highest flat rate (rows/s) | ratio | goal | steps:"
            + " offered → committed rows/s, backlog |");
    md.add("|---|---:|---:|---:|---|---|");
    for (Capacity c : r.capacity()) {
      List<String> steps = new ArrayList<>();
      for (CapacityStep st : c.steps()) {
        steps.add(
            String.format(
                "%,.0f → %,.0f, %,d → %,d%s",
                st.offered(),
                st.committed(),
                st.backlogStart(),
                st.backlogEnd(),
                st.flat() ? "" : " (growing)"));
      }
      md.add(
          String.format(
              "| %s | %,.0f | %,.0f | %.2f | >= 0.9 | %s |",
              c.layout(),
              c.insertAlone(),
              c.highestFlat(),
              c.highestFlat() / c.insertAlone(),
              String.join("; ", steps)));
    }
    if (!r.capacityNotes().isEmpty()) {
      md.add("");
      md.addAll(r.capacityNotes());
    }
    return md;
  }

  private static List<String> throughputTable(Report r) {
    Settings s = r.settings();
    Throughput t = r.throughput();
    double multi = r.inserts().get(r.inserts().size() - 1).median();
    List<String> md = BenchReport.section("### Throughput");
    md.add(
        String.format(
            "%d closed-loop writers, rows written with `Outbox.append` in jOOQ transactions."
                + " Insert rates: %d round(s) of %d s after %d s warm-up, single and multi"
                + " interleaved, medians, no relay running. CDC relay: the writers commit"
                + " %d-row transactions flat out; the figure is the steady-state rate over a %d s"
                + " window after %d s of warm-up (Kafka acknowledgements counted by the relay),"
                + " then the rate at which it drains the backlog once the writers stop.",
            s.clients(),
            s.rounds(),
            s.insertMeasure().toSeconds(),
            s.insertWarmup().toSeconds(),
            s.rowsPerTx(),
            s.throughputWindow().toSeconds(),
            s.throughputWarmup().toSeconds()));
    md.add("");
    md.add("| figure | rows/s | ratio to multi-row insert | goal | detail |");
    md.add("|---|---:|---:|---|---|");
    for (InsertRate i : r.inserts()) {
      md.add(
          String.format(
              "| %s | %,.0f | %.2f | | rounds %s |",
              i.name(), i.median(), i.median() / multi, rounds(i.rounds())));
    }
    md.add(
        String.format(
            "| CDC relay, while the writers run flat out | %,.0f | %.2f | goal: >= 0.9 | writers"
                + " committed %,.0f rows/s meanwhile; backlog %,d rows at the window's start, %,d"
                + " at its end |",
            t.relayRate(),
            t.relayRate() / multi,
            t.writerRate(),
            t.backlogAtStart(),
            t.backlogAtEnd()));
    md.add(
        String.format(
            "| CDC relay, draining after the writers stop | %,.0f | %.2f | | %s in %.1f s |",
            t.drainRate(),
            t.drainRate() / multi,
            t.drained() ? "backlog gone" : "backlog NOT gone",
            t.drainTime().toMillis() / 1000.0));
    return md;
  }

  private static List<String> latencyTable(Report r) {
    Settings s = r.settings();
    RelayRun cdc =
        r.runs().stream().filter(RelayRun::reference).findFirst().orElse(r.runs().get(0));
    DatabaseLoad.Rate base = r.baseline();
    List<String> md = BenchReport.section("### Latency and idle cost");
    md.add(
        String.format(
            "Latency: commit → consumer receive, i.e. from the writer's commit call returning to a"
                + " Kafka consumer in the same JVM receiving the record (matched by its"
                + " `message-id` header). That includes the consumer's fetch, a little more than"
                + " commit → Kafka acknowledgement. Open loop at %d events/s (and the CDC relay"
                + " also at %d events/s at each `poll.interval.ms`), one event per transaction,"
                + " %d s measured after %d s warm-up; HdrHistogram. The CDC relay runs in a JVM of"
                + " its own, first %d s at %d/s unmeasured so that its JIT has compiled the hot"
                + " path (a cold JVM's backlog shows as seconds of latency); the polling relay runs"
                + " in the bench's JVM, beside the in-process broker and the writers. Idle cost: %d"
                + " s without writes, after the latency runs, with only that relay running;"
                + " transactions/s = delta of `xact_commit + xact_rollback` in"
                + " `pg_stat_database`, PostgreSQL CPU = all its processes from /proc, bench JVM"
                + " CPU = the bench's process (the idle broker, and the polling relay);"
                + " these minus a baseline with no relay running (%s); relay process CPU = the CDC"
                + " relay's own JVM, from /proc, as it is.",
            s.rate(),
            s.highRate(),
            s.latencyMeasure().toSeconds(),
            s.latencyWarmup().toSeconds(),
            s.relayWarmup().toSeconds(),
            Math.max(s.rate(), s.highRate()),
            s.idle().toSeconds(),
            describe(base)));
    md.add("");
    md.add(
        "| relay | events/s | p50 ms | p99 ms | max ms | p99 ratio to CDC default | goal | events"
            + " | idle transactions/s | idle PostgreSQL CPU | idle bench JVM CPU | idle relay"
            + " process CPU |");
    md.add("|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|");
    for (RelayRun run : r.runs()) {
      boolean isCdc = run.relay().startsWith("CDC");
      String goal;
      if (!isCdc) {
        goal = "goal: >= 10x";
      } else if (run.rate() >= 1000) {
        goal = "goal: p99 <= 30 ms";
      } else {
        goal = "goal: p99 <= 15 ms";
      }
      String idleTx = "";
      String idlePg = "";
      String idleJvm = "";
      String idleRelay =
          run.relayCpuPercent() == null ? "" : String.format("%.1f%%", run.relayCpuPercent());
      if (run.idle() != null) {
        DatabaseLoad.Rate idle = run.idle().minus(base);
        idleTx = String.format("%+.1f", idle.transactionsPerSecond());
        idlePg = idle.cpuPercent() == null ? "n/a" : String.format("%+.1f%%", idle.cpuPercent());
        idleJvm = String.format("%+.1f%%", idle.jvmCpuPercent());
      }
      md.add(
          String.format(
              "| %s | %,d | %.1f | %.1f | %.1f | %s | %s | %,d%s | %s | %s | %s | %s |",
              run.relay(),
              run.rate(),
              run.p50Ms(),
              run.p99Ms(),
              run.maxMs(),
              run == cdc ? "1" : String.format("%.1fx", run.p99Ms() / cdc.p99Ms()),
              goal,
              run.events(),
              run.missing() == 0 ? "" : " (" + run.missing() + " missing)",
              idleTx,
              idlePg,
              idleJvm,
              idleRelay));
    }
    List<RelayRun> split = r.runs().stream().filter(run -> run.split() != null).toList();
    if (!split.isEmpty()) {
      md.add("");
      md.add(
          "Where the time went, split at the relay's send: the record's timestamp, which both"
              + " relays leave to the moment they hand the record to their producer (whole"
              + " milliseconds, taken as their middle, so each part is within half a millisecond;"
              + " all processes read the same clock). Before the send: PostgreSQL's logical"
              + " decoding and walsender, Debezium's streaming loop, its queue and"
              + " `poll.interval.ms`, the router and the converters (the polling relay: its poll"
              + " interval and claim); after it: the producer, the broker's append and the"
              + " consumer's fetch.");
      md.add("");
      for (RelayRun run : split) {
        md.add(String.format("- %s at %,d/s: %s.", run.relay(), run.rate(), describe(run.split())));
      }
    }
    md.add("");
    md.add(
        "Published figure for comparison: Debezium with its defaults reaches about 500 ms p99,"
            + " because of its 500 ms `poll.interval.ms`; this relay sets it to "
            + RelayConfig.DEFAULT_POLL_INTERVAL.toMillis()
            + " ms.");
    return md;
  }

  private static String rounds(List<Double> values) {
    return values.stream().map(v -> String.format("%,.0f", v)).toList().toString();
  }

  private static long totalMemoryMiB() {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os) {
      return os.getTotalMemorySize() / (1024 * 1024);
    }
    return -1;
  }

  /** One line: the two parts' p50 and p99, and where the slowest 1% spent their time. */
  static String describe(Split s) {
    return String.format(
        "commit → relay's send p50 %.1f / p99 %.1f ms, relay's send → received p50 %.1f / p99"
            + " %.1f ms; the slowest 1%% (%,d events at or above the p99) %.1f ms before the send"
            + " and %.1f ms after it on average",
        s.beforeP50Ms(),
        s.beforeP99Ms(),
        s.afterP50Ms(),
        s.afterP99Ms(),
        s.slowest(),
        s.slowestBeforeMs(),
        s.slowestAfterMs());
  }

  static String describe(DatabaseLoad.Rate r) {
    return String.format("%.1f transactions/s", r.transactionsPerSecond())
        + (r.cpuPercent() == null
            ? ""
            : String.format(", PostgreSQL CPU %.1f%% of one core", r.cpuPercent()))
        + String.format(", JVM CPU %.1f%%", r.jvmCpuPercent());
  }
}
