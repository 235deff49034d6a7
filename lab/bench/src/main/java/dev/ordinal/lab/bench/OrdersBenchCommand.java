package dev.ordinal.lab.bench;

import dev.ordinal.lab.devstack.Stack;
import dev.ordinal.lab.devstack.StackMode;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code bench orders}: order writes next to the raw insert rate of the same PostgreSQL. */
@Command(
    name = "orders",
    mixinStandardHelpOptions = true,
    description = {
      "Orders per second through the HTTP API and through the write function alone, next to the"
          + " raw single-row insert rate of the same PostgreSQL, as ratios; with one client, an"
          + " order's time, client CPU and WAL bytes next to a raw insert's (the WAL also by"
          + " relation, from pg_walinspect, installed if missing); and, when `wrk` is"
          + " installed, POST /orders from wrk in a process of its own (closed loop at 8, 32"
          + " and 128 connections, a new Idempotency-Key per request); and POST /orders open"
          + " loop at fixed rates (0.3, 0.6 and 0.9 of the write function's rate) from a JVM"
          + " of its own, p50/p99 from each request's intended send time; then order-service"
          + " started afresh with 4, 8, 16 and 32 database connections, each offered 0.9 of"
          + " the write function's rate open loop, to choose the pool size, and the same with"
          + " 16, 32, 64 and 250 Jetty threads at most (--http-threads). The embedded"
          + " PostgreSQL runs durable (fsync=on, synchronous_commit=on) for this; external"
          + " servers are measured as they are configured, and the output says how."
    })
final class OrdersBenchCommand extends ScenarioCommand<OrderWriteBench.Settings> {
  static final OrderWriteBench.Settings FULL =
      new OrderWriteBench.Settings(8, Duration.ofSeconds(2), Duration.ofSeconds(5), 3);
  static final OrderWriteBench.Settings QUICK =
      new OrderWriteBench.Settings(8, Duration.ofSeconds(1), Duration.ofSeconds(2), 1);

  @Option(
      names = "--quick",
      description = "One short round (indicative figures); explicit options win.")
  boolean quick;

  @Option(names = "--clients", description = "Closed-loop clients (default 8).")
  Integer clients;

  @Option(
      names = "--seconds",
      description = "Measured seconds per round and mode (default 5, --quick 2).")
  Integer seconds;

  @Option(
      names = "--warmup",
      description = "Warm-up seconds before each measurement, excluded (default 2, --quick 1).")
  Integer warmup;

  @Option(names = "--rounds", description = "Rounds; medians are reported (default 3, --quick 1).")
  Integer rounds;

  @Option(
      names = "--out",
      description = "Also write the results as Markdown (machine and settings first) to this file.")
  Path out;

  OrdersBenchCommand() {
    super(FULL, QUICK, OrdersBenchCommand::section);
  }

  @Override
  OrderWriteBench.Settings settings() {
    CommandLine cli = spec.commandLine();
    OrderWriteBench.Settings d = defaults();
    int c = clients == null ? d.clients() : clients;
    int sec = seconds == null ? (int) d.measure().toSeconds() : seconds;
    int w = warmup == null ? (int) d.warmup().toSeconds() : warmup;
    int r = rounds == null ? d.rounds() : rounds;
    if (c < 1 || c > 256) {
      throw new CommandLine.ParameterException(cli, "--clients must be 1 to 256, not " + c);
    }
    if (sec < 1 || sec > 600 || w < 0 || w > 600) {
      throw new CommandLine.ParameterException(
          cli, "--seconds must be 1 to 600 and --warmup 0 to 600");
    }
    if (r < 1 || r > 20) {
      throw new CommandLine.ParameterException(cli, "--rounds must be 1 to 20, not " + r);
    }
    return new OrderWriteBench.Settings(c, Duration.ofSeconds(w), Duration.ofSeconds(sec), r);
  }

  static List<String> section(Stack stack, OrderWriteBench.Settings s, Consumer<String> p)
      throws Exception {
    OrderWriteBench.Report report = OrderWriteBench.run(BenchRun.database(stack), s, p);
    return table(report, stack.mode());
  }

  private static List<String> table(OrderWriteBench.Report r, StackMode mode) {
    OrderWriteBench.Settings s = r.settings();
    List<String> lines =
        BenchReport.section("## Order writes (" + Instant.now().toString().substring(0, 16) + "Z)");
    lines.add(
        String.format(
            "Machine: %d cores, %d MiB max heap. PostgreSQL %s (%s): fsync=%s, synchronous_commit=%s, full_page_writes=%s.",
            Runtime.getRuntime().availableProcessors(),
            Runtime.getRuntime().maxMemory() / (1024 * 1024),
            r.database().get("server_version"),
            mode.name().toLowerCase(Locale.ROOT),
            r.database().get("fsync"),
            r.database().get("synchronous_commit"),
            r.database().get("full_page_writes")));
    lines.add(
        String.format(
            "%d closed-loop clients, %d rounds of %d s after %d s warm-up each; medians; one JVM (%s).",
            s.clients(),
            s.rounds(),
            s.measure().toSeconds(),
            s.warmup().toSeconds(),
            ManagementFactory.getRuntimeMXBean().getVmVersion()));
    lines.add("");
    lines.add("| path | median | unit | ratio to raw insert | rounds |");
    lines.add("|---|---:|---|---:|---|");
    double limit = r.figures().get(0).median();
    for (OrderWriteBench.Figure f : r.figures()) {
      lines.add(
          String.format(
              "| %s | %,.0f | %s | %.2f | %s |",
              f.name(),
              f.median(),
              f.unit(),
              f.median() / limit,
              f.rounds().stream().map(v -> String.format("%,.0f", v)).toList()));
    }
    if (!r.notes().isEmpty()) {
      lines.add("");
      lines.addAll(r.notes());
    }
    return lines;
  }
}
