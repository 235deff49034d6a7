package dev.ordinal.cli;

import dev.ordinal.cli.bench.NumberingBench;
import dev.ordinal.cli.bench.OrderWriteBench;
import dev.ordinal.cli.bench.RelayBench;
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
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description =
        "Benchmarks: figures next to the limit measured in the same run (never pass/fail).",
    subcommands = {
      BenchCommand.Orders.class,
      BenchCommand.Relay.class,
      BenchCommand.Billing.class,
      BenchCommand.Numbering.class
    })
final class BenchCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** The stack benchmarks run on: durable, and the embedded one in a data dir of its own. */
  static Stack startStack(PrintWriter o) {
    StackConfig config = StackConfig.fromEnvironment(System.getenv()).withDurable(true);
    if (config.mode() == StackMode.EMBEDDED) {
      config = config.withDataDir(config.dataDir().resolveSibling("bench-stack"));
    }
    o.println("Starting the " + config.mode().name().toLowerCase(Locale.ROOT) + " stack ...");
    o.flush();
    return Stack.start(config);
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
      try (Stack stack = startStack(o)) {
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

  @Command(
      name = "relay",
      mixinStandardHelpOptions = true,
      description = {
        "The CDC relay and the polling relay on the same PostgreSQL and broker, in one run: the"
            + " raw outbox insert rate (single-row and multi-row commits), the CDC relay's"
            + " sustained events/s and its ratio to the multi-row insert rate, commit -> consumer"
            + " latency p50/p99/max at a fixed open-loop rate for the CDC relay and the polling"
            + " relay (its default interval and a fast one), and the transactions/s and"
            + " PostgreSQL CPU each relay costs while idle. The embedded PostgreSQL runs durable"
            + " (fsync=on, synchronous_commit=on). About 3 minutes; --quick about a minute and a"
            + " quarter. Figures are printed next to their goals, never judged."
      })
  static final class Relay implements Callable<Integer> {
    private static final RelayBench.Settings FULL = RelayBench.Settings.DEFAULT;
    private static final RelayBench.Settings QUICK = RelayBench.Settings.QUICK;

    @Option(
        names = "--quick",
        description = "Shorter rounds and windows (indicative figures); explicit options win.")
    boolean quick;

    @Option(
        names = "--clients",
        description =
            "Closed-loop writers for the insert rates and the CDC throughput (default 8).")
    Integer clients;

    @Option(names = "--rows-per-tx", description = "Rows per multi-row transaction (default 50).")
    Integer rowsPerTx;

    @Option(
        names = "--rounds",
        description = "Insert-rate rounds; medians are reported (default 3, --quick 1).")
    Integer rounds;

    @Option(
        names = "--insert-seconds",
        description = "Measured seconds per insert-rate round and mode (default 3, --quick 2).")
    Integer insertSeconds;

    @Option(
        names = "--insert-warmup",
        description = "Warm-up seconds before each insert-rate measurement (default 2, --quick 1).")
    Integer insertWarmup;

    @Option(
        names = "--throughput-seconds",
        description = "Measured window of the CDC throughput, seconds (default 15, --quick 4).")
    Integer throughputSeconds;

    @Option(
        names = "--throughput-warmup",
        description = "Warm-up before that window, seconds (default 10, --quick 3).")
    Integer throughputWarmup;

    @Option(
        names = "--rate",
        description = "Events per second of the latency runs, open loop (default 200).")
    Integer rate;

    @Option(
        names = "--latency-seconds",
        description = "Measured seconds per latency run (default 15, --quick 4).")
    Integer latencySeconds;

    @Option(
        names = "--latency-warmup",
        description = "Warm-up seconds per latency run, excluded (default 3, --quick 1).")
    Integer latencyWarmup;

    @Option(
        names = "--fast-poll-ms",
        description =
            "The polling relay's fast interval in milliseconds, next to its default of 500"
                + " (default 50).")
    Integer fastPollMs;

    @Option(
        names = "--idle-seconds",
        description =
            "Idle window per relay and for the baseline with no relay (default 10, --quick 4).")
    Integer idleSeconds;

    @Option(names = "--out", description = "Also write the results as Markdown to this file.")
    Path out;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      RelayBench.Settings s = settings();
      PrintWriter o = spec.commandLine().getOut();
      try (Stack stack = startStack(o)) {
        DatabaseSettings db =
            new DatabaseSettings(stack.jdbcUrl(), stack.dbUser(), stack.dbPassword());
        Preflight.checkPostgres(db, true);
        Preflight.checkKafka(stack.kafkaBootstrap(), Preflight.DEFAULT_TIMEOUT);
        RelayBench.Report report =
            RelayBench.run(
                db,
                stack.kafkaBootstrap(),
                s,
                line -> {
                  o.println("  " + line);
                  o.flush();
                });
        List<String> md =
            RelayBench.markdown(
                report,
                stack.mode().name().toLowerCase(Locale.ROOT),
                Instant.now().toString().substring(0, 16) + "Z");
        o.println();
        md.forEach(o::println);
        o.flush();
        if (out != null) {
          Files.writeString(out, String.join("\n", md) + "\n");
          o.println("Written to " + out);
        }
      }
      return 0;
    }

    /** Explicit options, else the --quick values, else the defaults; refused when out of range. */
    RelayBench.Settings settings() {
      RelayBench.Settings d = quick ? QUICK : FULL;
      int fastMs =
          pick("--fast-poll-ms", fastPollMs, (int) d.fastPollInterval().toMillis(), 1, 500);
      return new RelayBench.Settings(
          pick("--clients", clients, d.clients(), 1, 256),
          pick("--rows-per-tx", rowsPerTx, d.rowsPerTx(), 2, 10_000),
          pick("--rounds", rounds, d.rounds(), 1, 20),
          seconds("--insert-warmup", insertWarmup, d.insertWarmup(), 0),
          seconds("--insert-seconds", insertSeconds, d.insertMeasure(), 1),
          seconds("--throughput-warmup", throughputWarmup, d.throughputWarmup(), 0),
          seconds("--throughput-seconds", throughputSeconds, d.throughputWindow(), 1),
          pick("--rate", rate, d.rate(), 1, 5_000),
          seconds("--latency-warmup", latencyWarmup, d.latencyWarmup(), 0),
          seconds("--latency-seconds", latencySeconds, d.latencyMeasure(), 1),
          d.defaultPollInterval(),
          Duration.ofMillis(fastMs),
          seconds("--idle-seconds", idleSeconds, d.idle(), 1));
    }

    private Duration seconds(String name, Integer value, Duration otherwise, int min) {
      return Duration.ofSeconds(pick(name, value, (int) otherwise.toSeconds(), min, 600));
    }

    private int pick(String name, Integer value, int otherwise, int min, int max) {
      int v = value == null ? otherwise : value;
      if (v < min || v > max) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), name + " must be " + min + " to " + max + ", not " + v);
      }
      return v;
    }
  }

  @Command(
      name = "numbering",
      mixinStandardHelpOptions = true,
      description = {
        "Gapless numbering next to its limit, measured in the same run on the same PostgreSQL"
            + " (the embedded one durable: fsync=on, synchronous_commit=on): just-in-time"
            + " reservations/s on one series vs the single-row counter update rate (goal >= 0.8),"
            + " and numbers/s with block reservation on one series (goal >= 50x that rate)."
            + " Rounds alternate the three; medians are reported. About 40 s plus the drafts'"
            + " creation; --quick about 20 s. The integrator part is `bench billing`."
      })
  static final class Numbering implements Callable<Integer> {
    @Option(
        names = "--quick",
        description = "One round with shorter windows and fewer blocks; explicit options win.")
    boolean quick;

    @Option(
        names = "--clients",
        description = "Closed-loop clients of every measurement (default 8).")
    Integer clients;

    @Option(
        names = "--rounds",
        description = "Rounds; medians are reported (default 3, --quick 1).")
    Integer rounds;

    @Option(
        names = "--block-size",
        description = "Drafts numbered per block transaction (default 1000).")
    Integer blockSize;

    @Option(
        names = "--blocks",
        description =
            "Blocks per round, the first fifth of them warm-up (default 200, --quick 100).")
    Integer blocks;

    @Option(names = "--out", description = "Also write the table as Markdown to this file.")
    Path out;

    static int pick(
        CommandLine.Model.CommandSpec spec,
        String name,
        Integer value,
        int otherwise,
        int min,
        int max) {
      int v = value == null ? otherwise : value;
      if (v < min || v > max) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), name + " must be " + min + " to " + max + ", not " + v);
      }
      return v;
    }

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    /** Explicit options, else the --quick values, else the defaults; refused when out of range. */
    NumberingBench.Settings settings() {
      NumberingBench.Settings d =
          quick ? NumberingBench.Settings.QUICK : NumberingBench.Settings.DEFAULT;
      return new NumberingBench.Settings(
          pick(spec, "--clients", clients, d.clients(), 1, 256),
          d.warmup(),
          d.measure(),
          pick(spec, "--rounds", rounds, d.rounds(), 1, 20),
          pick(spec, "--block-size", blockSize, d.blockSize(), 2, 10_000),
          pick(spec, "--blocks", blocks, d.blocks(), 5, 10_000));
    }

    @Override
    public Integer call() throws Exception {
      PrintWriter o = spec.commandLine().getOut();
      NumberingBench.Settings s = settings();
      try (Stack stack = startStack(o)) {
        DatabaseSettings db =
            new DatabaseSettings(stack.jdbcUrl(), stack.dbUser(), stack.dbPassword());
        Preflight.checkPostgres(db, false);
        NumberingBench.Report report =
            NumberingBench.run(
                db,
                s,
                line -> {
                  o.println("  " + line);
                  o.flush();
                });
        Map<String, String> facts =
            NumberingBench.facts(report.database(), stack.mode().name().toLowerCase(Locale.ROOT));
        facts.put(
            "Load",
            String.format(
                "%d closed-loop clients; %d round(s) of %d s windows after %d s warm-up; blocks of"
                    + " %,d drafts, %d per round, the first fifth warm-up",
                s.clients(),
                s.rounds(),
                s.measure().toSeconds(),
                s.warmup().toSeconds(),
                s.blockSize(),
                s.blocks()));
        List<String> table =
            NumberingBench.table(
                "Numbering (" + Instant.now().toString().substring(0, 16) + "Z)",
                report.rows(),
                facts);
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
  }

  @Command(
      name = "billing",
      mixinStandardHelpOptions = true,
      description = {
        "Billing next to its limits, in one run on the same PostgreSQL and broker (the embedded"
            + " PostgreSQL durable: fsync=on, synchronous_commit=on): invoices/s through the"
            + " issuer with a 200 ms integrator (the HTTP simulator, no faults) at 1, 4 and 16"
            + " calls in flight vs in-flight / latency (goal >= 0.9); and billing's consumer"
            + " applying the same pre-produced OrderPlaced records through the real inbox"
            + " consumer vs a copy of its loop without the inbox row, each into a fresh schema"
            + " (goal >= 0.85). About 3.5 minutes; --quick about 50 s."
      })
  static final class Billing implements Callable<Integer> {
    @Option(
        names = "--quick",
        description = "Shorter windows and fewer records; explicit options win.")
    boolean quick;

    @Option(
        names = "--messages",
        description =
            "Measured OrderPlaced records per consumer run (default 10000, --quick 3000).")
    Integer messages;

    @Option(
        names = "--concurrency",
        description = "The consumers' concurrency, keys applied at once (default 8).")
    Integer concurrency;

    @Option(
        names = "--rounds",
        description =
            "Consumer rounds, each running the three consumers in a rotated order; medians are"
                + " reported (default 3, --quick 1).")
    Integer rounds;

    @Option(
        names = "--issuer-seconds",
        description = "Measured seconds per in-flight level (default 10, --quick 3).")
    Integer issuerSeconds;

    @Option(names = "--out", description = "Also write the table as Markdown to this file.")
    Path out;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    /** Explicit options, else the --quick values, else the defaults; refused when out of range. */
    dev.ordinal.cli.bench.BillingBench.Settings settings() {
      dev.ordinal.cli.bench.BillingBench.Settings d =
          quick
              ? dev.ordinal.cli.bench.BillingBench.Settings.QUICK
              : dev.ordinal.cli.bench.BillingBench.Settings.DEFAULT;
      int m = Numbering.pick(spec, "--messages", messages, d.messages(), 100, 1_000_000);
      return new dev.ordinal.cli.bench.BillingBench.Settings(
          d.latency(),
          d.inFlight(),
          d.issuerWarmup(),
          Duration.ofSeconds(
              Numbering.pick(
                  spec,
                  "--issuer-seconds",
                  issuerSeconds,
                  (int) d.issuerMeasure().toSeconds(),
                  1,
                  600)),
          m,
          Math.min(d.warmupMessages(), Math.max(100, m / 5)),
          Numbering.pick(spec, "--concurrency", concurrency, d.concurrency(), 1, 256),
          Numbering.pick(spec, "--rounds", rounds, d.rounds(), 1, 20));
    }

    @Override
    public Integer call() throws Exception {
      PrintWriter o = spec.commandLine().getOut();
      dev.ordinal.cli.bench.BillingBench.Settings s = settings();
      try (Stack stack = startStack(o)) {
        DatabaseSettings db =
            new DatabaseSettings(stack.jdbcUrl(), stack.dbUser(), stack.dbPassword());
        Preflight.checkPostgres(db, false);
        Preflight.checkKafka(stack.kafkaBootstrap(), Preflight.DEFAULT_TIMEOUT);
        NumberingBench.Report report =
            dev.ordinal.cli.bench.BillingBench.run(
                db,
                stack.kafkaBootstrap(),
                s,
                "bench_billing",
                line -> {
                  o.println("  " + line);
                  o.flush();
                });
        List<String> table =
            dev.ordinal.cli.bench.BillingBench.markdown(
                report,
                s,
                stack.mode().name().toLowerCase(Locale.ROOT),
                Instant.now().toString().substring(0, 16) + "Z");
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
  }
}
