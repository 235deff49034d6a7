package dev.ordinal.cli;

import dev.ordinal.cli.bench.OrderWriteBench;
import dev.ordinal.infra.Stack;
import dev.ordinal.infra.StackConfig;
import dev.ordinal.infra.StackMode;
import dev.ordinal.messaging.DatabaseSettings;
import dev.ordinal.messaging.Preflight;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description =
        "Benchmarks: figures next to the limit measured in the same run (never pass/fail).",
    subcommands = {BenchCommand.Orders.class})
final class BenchCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(
      name = "orders",
      mixinStandardHelpOptions = true,
      description = {
        "Orders per second through the HTTP API and through the write function alone, next to the"
            + " raw single-row insert rate of the same PostgreSQL, as ratios. The embedded"
            + " PostgreSQL runs durable (fsync=on, synchronous_commit=on) for this; external"
            + " servers are measured as they are configured, and the output says how."
      })
  static final class Orders implements Callable<Integer> {
    @Option(
        names = "--clients",
        defaultValue = "8",
        description = "Closed-loop clients (default ${DEFAULT-VALUE}).")
    int clients;

    @Option(
        names = "--seconds",
        defaultValue = "5",
        description = "Measured seconds per round and mode (default ${DEFAULT-VALUE}).")
    int seconds;

    @Option(
        names = "--warmup",
        defaultValue = "2",
        description =
            "Warm-up seconds before each measurement, excluded (default ${DEFAULT-VALUE}).")
    int warmup;

    @Option(
        names = "--rounds",
        defaultValue = "3",
        description = "Rounds; medians are reported (default ${DEFAULT-VALUE}).")
    int rounds;

    @Option(
        names = "--out",
        description = "Also write the results as a Markdown table to this file.")
    Path out;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      CommandLine cli = spec.commandLine();
      if (clients < 1 || clients > 256) {
        throw new CommandLine.ParameterException(cli, "--clients must be 1 to 256, not " + clients);
      }
      if (seconds < 1 || seconds > 600 || warmup < 0 || warmup > 600) {
        throw new CommandLine.ParameterException(
            cli, "--seconds must be 1 to 600 and --warmup 0 to 600");
      }
      if (rounds < 1 || rounds > 20) {
        throw new CommandLine.ParameterException(cli, "--rounds must be 1 to 20, not " + rounds);
      }
      PrintWriter o = cli.getOut();
      StackConfig config = StackConfig.fromEnvironment(System.getenv()).withDurable(true);
      if (config.mode() == StackMode.EMBEDDED) {
        config = config.withDataDir(config.dataDir().resolveSibling("bench-stack"));
      }
      o.println("Starting the " + config.mode().name().toLowerCase(Locale.ROOT) + " stack ...");
      o.flush();
      try (Stack stack = Stack.start(config)) {
        DatabaseSettings db =
            new DatabaseSettings(stack.jdbcUrl(), stack.dbUser(), stack.dbPassword());
        Preflight.checkPostgres(db, false);
        OrderWriteBench.Settings s =
            new OrderWriteBench.Settings(
                clients, Duration.ofSeconds(warmup), Duration.ofSeconds(seconds), rounds);
        OrderWriteBench.Report report =
            OrderWriteBench.run(
                db,
                s,
                line -> {
                  o.println("  " + line);
                  o.flush();
                });
        List<String> table = table(report, stack.mode());
        o.println();
        table.forEach(o::println);
        o.flush();
        if (out != null) {
          Files.writeString(out, String.join("\n", table) + "\n");
          o.println("Written to " + out);
        }
      }
      return 0;
    }

    private static List<String> table(OrderWriteBench.Report r, StackMode mode) {
      List<String> lines = new ArrayList<>();
      OrderWriteBench.Settings s = r.settings();
      lines.add("## Order writes (" + Instant.now().toString().substring(0, 16) + "Z)");
      lines.add("");
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
      return lines;
    }
  }
}
