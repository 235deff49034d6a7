package dev.ordinal.lab.bench;

import static dev.ordinal.lab.bench.RelayBench.CAPACITY_FRACTIONS;
import static dev.ordinal.lab.bench.RelayBench.PARTITIONS;

import com.sun.management.OperatingSystemMXBean;
import dev.ordinal.lab.bench.RelayBench.Capacity;
import dev.ordinal.lab.bench.RelayBench.CapacityStep;
import dev.ordinal.lab.bench.RelayBench.InsertRate;
import dev.ordinal.lab.bench.RelayBench.RelayRun;
import dev.ordinal.lab.bench.RelayBench.Report;
import dev.ordinal.lab.bench.RelayBench.Settings;
import dev.ordinal.lab.bench.RelayBench.Split;
import dev.ordinal.lab.bench.RelayBench.Throughput;
import dev.ordinal.relay.RelayConfig;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The relay bench's report as Markdown, and its one-line descriptions for progress lines. */
final class RelayReport {
  private RelayReport() {}

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
      md.add(latencyRow(run, cdc, base));
    }
    md.addAll(splitLines(r.runs()));
    md.add("");
    md.add(
        "Published figure for comparison: Debezium with its defaults reaches about 500 ms p99,"
            + " because of its 500 ms `poll.interval.ms`; this relay sets it to "
            + RelayConfig.DEFAULT_POLL_INTERVAL.toMillis()
            + " ms.");
    return md;
  }

  /** One run's row: its latency, the ratio of its p99 to the CDC default's, goal, idle cost. */
  private static String latencyRow(RelayRun run, RelayRun cdc, DatabaseLoad.Rate base) {
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
    return String.format(
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
        idleRelay);
  }

  /** Where each run's time went, split at the relay's send (none when no run has a split). */
  private static List<String> splitLines(List<RelayRun> runs) {
    List<String> md = new ArrayList<>();
    List<RelayRun> split = runs.stream().filter(run -> run.split() != null).toList();
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
