package dev.ordinal.lab.bench;

import static dev.ordinal.lab.bench.RelayBench.DRAIN_TIMEOUT;
import static dev.ordinal.lab.bench.RelayBench.LATENCY_WRITERS;
import static dev.ordinal.lab.bench.RelayBench.PARTITIONS;
import static dev.ordinal.lab.bench.RelayBench.STATS_FLUSH_DELAY;
import static dev.ordinal.lab.bench.RelayReport.describe;
import static dev.ordinal.lab.bench.RelayStage.event;
import static dev.ordinal.lab.bench.RelayStage.sleepUntil;
import static dev.ordinal.lab.bench.RelayStage.waitFor;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.lab.bench.RelayBench.RelayRun;
import dev.ordinal.lab.bench.RelayBench.Settings;
import dev.ordinal.lab.bench.RelayBench.Split;
import dev.ordinal.lab.bench.RelayStage.Namespace;
import dev.ordinal.lab.bench.RelayStage.RelayStarter;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.relay.PollingRelayConfig;
import dev.ordinal.relay.RelayConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The relay bench's latency measurements: (3) commit → consumer receive at fixed open-loop rates,
 * the CDC relay in a JVM of its own at each poll interval and the polling relay at two intervals,
 * each split at the relay's send; (4) what each relay costs while idle, above a baseline with no
 * relay running.
 */
final class RelayLatency {
  private final RelayStage stage;
  private final BenchTarget on;
  private final Settings s;
  private final DatabaseLoad load;
  private final Outbox outbox;

  RelayLatency(RelayStage stage) {
    this.stage = stage;
    this.on = stage.on();
    this.s = stage.settings();
    this.load = stage.load();
    this.outbox = stage.outbox();
  }

  /** What the database and the bench's JVM cost with no relay running. */
  DatabaseLoad.Rate baseline() throws Exception {
    on.progress("baseline: " + s.idle().toSeconds() + " s idle with no relay running ...");
    stage.quiesce(System.nanoTime());
    DatabaseLoad.Rate baseline = load.measure(s.idle());
    on.progress(String.format("baseline: %s", describe(baseline)));
    return baseline;
  }

  /** The CDC relay at each poll interval, then the polling relay at its two intervals. */
  List<RelayRun> runs() throws Exception {
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
              ns -> stage.startPolling(ns, interval),
              interval,
              s.rate(),
              false,
              true));
    }
    return runs;
  }

  // ---- 3. + 4. latency at a fixed rate, then the idle cost ----

  /**
   * The CDC relay in a JVM of its own ({@link RelayProcess}): warmed up for {@link
   * Settings#relayWarmup} at the high rate (not measured), then its latency at the base rate and at
   * the high rate, then what that same process costs while idle (its CPU read from /proc).
   */
  private List<RelayRun> cdcLatencyRuns(
      String relayName, Namespace ns, Duration pollInterval, boolean reference) throws Exception {
    stage.prepare(ns, true);
    on.progress(relayName + ": starting it in a JVM of its own ...");
    try (RelayProcess relay = stage.startRelayProcess(ns, pollInterval, null);
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
      stage.quiesce(started + STATS_FLUSH_DELAY.toNanos());
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
      stage.cleanup(ns);
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
    stage.prepare(ns, true);
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
      stage.quiesce(started + STATS_FLUSH_DELAY.toNanos());
      DatabaseLoad.Sample before = load.sample();
      Thread.sleep(s.idle().toMillis()); // the idle window itself, not a wait for a condition
      DatabaseLoad.Sample after = load.sample();
      DatabaseLoad.Rate idle = DatabaseLoad.between(before, after);
      on.progress(label + ": idle " + describe(idle));
      return latency.withIdle(idle, null);
    } finally {
      stage.cleanup(ns);
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
}
