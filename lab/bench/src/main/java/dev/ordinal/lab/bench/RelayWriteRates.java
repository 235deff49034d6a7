package dev.ordinal.lab.bench;

import static dev.ordinal.lab.bench.RelayBench.CAPACITY_FRACTIONS;
import static dev.ordinal.lab.bench.RelayBench.DRAIN_TIMEOUT;
import static dev.ordinal.lab.bench.RelayStage.event;
import static dev.ordinal.lab.bench.RelayStage.sleepUntil;
import static dev.ordinal.lab.bench.RelayStage.waitFor;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.lab.bench.RelayBench.Capacity;
import dev.ordinal.lab.bench.RelayBench.CapacityStep;
import dev.ordinal.lab.bench.RelayBench.InsertRate;
import dev.ordinal.lab.bench.RelayBench.Settings;
import dev.ordinal.lab.bench.RelayBench.Throughput;
import dev.ordinal.lab.bench.RelayStage.Namespace;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.relay.OutboxRelay;
import dev.ordinal.relay.RelayConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The relay bench's write-side measurements: (1) the raw outbox insert rate, single-row and
 * multi-row commits; (2) the CDC relay's sustained events/s while writers commit flat out; (2b) its
 * capacity with the writers in a process of their own, open loop at rising rates.
 */
final class RelayWriteRates {
  private final RelayStage stage;
  private final BenchTarget on;
  private final Settings s;
  private final DatabaseLoad load;
  private final Outbox outbox;

  RelayWriteRates(RelayStage stage) {
    this.stage = stage;
    this.on = stage.on();
    this.s = stage.settings();
    this.load = stage.load();
    this.outbox = stage.outbox();
  }

  // ---- 1. raw outbox insert rate ----

  List<InsertRate> insertRates() throws Exception {
    Namespace ns = new Namespace("insert");
    stage.prepare(ns, false);
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
      ops.put(multi, () -> dsl.transaction(c -> stage.appendRows(c.dsl(), s.rowsPerTx())));
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
      stage.cleanup(ns);
    }
  }

  // ---- 2. CDC relay throughput ----

  Throughput throughput() throws Exception {
    Namespace ns = new Namespace("cdc_throughput");
    stage.prepare(ns, true);
    on.progress("CDC throughput: starting the relay ...");
    ExecutorService writers = Executors.newFixedThreadPool(s.clients());
    try (HikariDataSource pool =
            on.db().withSchema(ns.schema()).pool("bench-relay-throughput", s.clients() + 2);
        OutboxRelay relay = stage.startCdc(ns, RelayConfig.DEFAULT_POLL_INTERVAL)) {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      AtomicBoolean stop = new AtomicBoolean();
      LongAdder written = new LongAdder();
      long start = System.nanoTime();
      List<Future<?>> running = flatOut(writers, dsl, stop, written);
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
      tell(t, total - r2);
      return t;
    } finally {
      writers.shutdownNow();
      stage.cleanup(ns);
    }
  }

  /** The writers, each committing {@code rowsPerTx}-row transactions until {@code stop}. */
  private List<Future<?>> flatOut(
      ExecutorService writers, DSLContext dsl, AtomicBoolean stop, LongAdder written) {
    List<Future<?>> running = new ArrayList<>();
    for (int i = 0; i < s.clients(); i++) {
      running.add(
          writers.submit(
              () -> {
                while (!stop.get()) {
                  dsl.transaction(c -> stage.appendRows(c.dsl(), s.rowsPerTx()));
                  written.add(s.rowsPerTx());
                }
                return null;
              }));
    }
    return running;
  }

  /** The throughput's progress line; {@code left} rows were not relayed when the drain ended. */
  private void tell(Throughput t, long left) {
    on.progress(
        String.format(
            "CDC throughput: relay %,.0f events/s, writers %,.0f rows/s; backlog %,d -> %,d;"
                + " drained %s in %.1f s at %,.0f events/s",
            t.relayRate(),
            t.writerRate(),
            t.backlogAtStart(),
            t.backlogAtEnd(),
            t.drained() ? "all" : "NOT all (" + left + " left)",
            t.drainTime().toMillis() / 1000.0,
            t.drainRate()));
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
    stage.prepare(ns, true);
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
      List<CapacityStep> steps = steps(ns, tag, limit, relayCore, dbCore);
      return new Capacity(layout, limit, steps);
    } finally {
      if (!pinning.undo()) {
        notes.add("Undoing the core pinning of " + layout + " failed for some processes.");
      }
      stage.cleanup(ns);
    }
  }

  /**
   * With the relay streaming, the writers open loop at each of {@link
   * RelayBench#CAPACITY_FRACTIONS} of {@code limit} in turn, until the backlog grows.
   */
  private List<CapacityStep> steps(
      Namespace ns, String tag, double limit, String relayCore, String dbCore) throws Exception {
    List<CapacityStep> steps = new ArrayList<>();
    try (RelayProcess relay =
            stage.startRelayProcess(ns, RelayConfig.DEFAULT_POLL_INTERVAL, relayCore);
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
    return steps;
  }

  /**
   * The capacity with all processes sharing the cores; then, with 2 cores and {@code taskset}, with
   * the relay and broker on one core and PostgreSQL and the writers on the other.
   */
  List<Capacity> capacities(List<String> capacityNotes) throws Exception {
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
    return capacity;
  }
}
