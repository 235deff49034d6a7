package dev.ordinal.lab.bench;

import dev.ordinal.lab.devstack.SecuredKafka;
import dev.ordinal.lab.devstack.Stack;
import dev.ordinal.lab.devstack.StackConfig;
import dev.ordinal.lab.devstack.StackMode;
import dev.ordinal.messaging.Preflight;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.testkit.tls.TestCertificates;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    description = {
      "Benchmarks: figures next to the limit measured in the same run (never pass/fail).",
      "Without a subcommand, runs every scenario below one after the other on one stack,"
          + " started once: about 35 minutes on 2 cores (21-33 measured before security's 3"
          + " minutes and connect's 4 were added, the longest on a busy host), --quick a few."
    },
    subcommands = {
      BenchCommand.Orders.class,
      BenchCommand.Relay.class,
      BenchCommand.Connect.class,
      BenchCommand.Numbering.class,
      BenchCommand.Billing.class,
      BenchCommand.Lanes.class,
      BenchCommand.E2e.class,
      BenchCommand.Security.class
    })
public final class BenchCommand implements Callable<Integer> {
  /** The relay scenario's settings in an all-scenarios --quick run: shorter than relay --quick. */
  static final RelayBench.Settings RELAY_ALL_QUICK =
      new RelayBench.Settings(
          8,
          50,
          1,
          Duration.ofSeconds(1),
          Duration.ofSeconds(2),
          Duration.ofSeconds(2),
          Duration.ofSeconds(3),
          200,
          1000,
          Duration.ofSeconds(1),
          Duration.ofSeconds(3),
          Duration.ofSeconds(8),
          RelayBench.Settings.QUICK.defaultPollInterval(),
          RelayBench.Settings.QUICK.fastPollInterval(),
          RelayBench.Settings.CDC_POLL_INTERVALS,
          Duration.ofSeconds(2),
          Duration.ofSeconds(4));

  /**
   * Every scenario {@code bench} runs without a subcommand, in order. Adding one is one line: a
   * name and a function of (stack, quick, progress) returning its Markdown section.
   */
  static final List<Scenario> SCENARIOS =
      List.of(
          scenario("orders", Orders.defaults(false), Orders.defaults(true), Orders::section),
          scenario("relay", RelayBench.Settings.DEFAULT, RELAY_ALL_QUICK, Relay::section),
          scenario(
              "connect",
              ConnectBench.Settings.DEFAULT,
              ConnectBench.Settings.QUICK,
              Connect::section),
          scenario(
              "numbering",
              NumberingBench.Settings.DEFAULT,
              NumberingBench.Settings.QUICK,
              Numbering::section),
          scenario(
              "billing",
              BillingBench.Settings.DEFAULT,
              BillingBench.Settings.QUICK,
              Billing::section),
          scenario("lanes", LanesBench.Settings.DEFAULT, LanesBench.Settings.QUICK, Lanes::section),
          scenario("e2e", E2eBench.Settings.DEFAULT, E2eBench.Settings.QUICK, E2e::section),
          scenario(
              "security",
              SecurityBench.Settings.DEFAULT,
              SecurityBench.Settings.QUICK,
              Security::section));

  /** A scenario's section on a started stack with settings {@code s}. */
  @FunctionalInterface
  interface Section<S> {
    List<String> run(Stack stack, S s, Consumer<String> progress) throws Exception;
  }

  /** Scenario {@code name}: its section with {@code full}, or with {@code quick} under --quick. */
  static <S> Scenario scenario(String name, S full, S quick, Section<S> section) {
    return new Scenario(name, (stack, q, p) -> section.run(stack, q ? quick : full, p));
  }

  @Option(
      names = "--quick",
      description =
          "Every scenario with shorter windows (indicative figures, a few minutes in all).")
  boolean quick;

  @Option(
      names = "--only",
      split = ",",
      paramLabel = "NAME",
      completionCandidates = ScenarioNames.class,
      description =
          "Run only these scenarios, comma-separated, in the order given"
              + " (${COMPLETION-CANDIDATES}).")
  List<String> only;

  @Option(
      names = "--out",
      description =
          "Also write one Markdown document to this file (machine, settings, each scenario's"
              + " section, then each one's run time, the CPU time the host took and the mean WAL"
              + " sync meanwhile), rewritten after each scenario.")
  Path out;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** The names {@code --only} takes, for its help text. */
  static final class ScenarioNames implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return SCENARIOS.stream().map(Scenario::name).iterator();
    }
  }

  @Override
  public Integer call() throws Exception {
    List<Scenario> chosen = chosen(SCENARIOS, only, spec.commandLine());
    PrintWriter o = spec.commandLine().getOut();
    String when = now();
    long start = System.nanoTime();
    Optional<HostSteal> runSteal = HostSteal.now();
    List<List<String>> sections = new ArrayList<>();
    List<String> timings = new ArrayList<>();
    int failed = 0;
    try (Stack stack = startStack(o)) {
      DatabaseSettings db = checked(stack);
      Optional<WalSyncs> runSyncs = WalSyncs.read(db);
      // one reading ends a scenario and starts the next
      Optional<HostSteal> steal = HostSteal.now();
      Optional<WalSyncs> syncs = runSyncs;
      List<String> header =
          BenchReport.header(
              when,
              BenchReport.Machine.current(),
              mode(stack),
              databaseSettings(db),
              quick,
              chosen.stream().map(Scenario::name).toList());
      header.forEach(o::println);
      for (Scenario s : chosen) {
        o.println();
        o.println("== " + s.name() + (quick ? " (quick)" : "") + " ==");
        o.flush();
        long t0 = System.nanoTime();
        List<String> section;
        try {
          section = s.runner().run(stack, quick, progress(o));
        } catch (Exception e) {
          failed++;
          section = List.of("## " + s.name() + " (" + now() + ")", "", "Failed: " + e);
          o.println("  " + s.name() + " failed: " + e);
        }
        Optional<HostSteal> stealAfter = HostSteal.now();
        Optional<WalSyncs> syncsAfter = WalSyncs.read(db);
        timings.add(
            timingRow(
                s.name(),
                (System.nanoTime() - t0) / 1e9,
                HostSteal.cell(steal, stealAfter),
                WalSyncs.meanCell(syncs, syncsAfter)));
        steal = stealAfter;
        syncs = syncsAfter;
        sections.add(section);
        o.println();
        section.forEach(o::println);
        o.flush();
        if (out != null) {
          Files.writeString(out, BenchReport.document(header, withTimings(sections, timings)));
        }
      }
      o.println();
      withTimings(List.of(), timings).get(0).forEach(o::println);
      o.printf(
          "All scenarios took %.0f s, stack start included; the host took %s%% of the CPU time"
              + " (steal); a WAL sync took %s ms on average.%n",
          (System.nanoTime() - start) / 1e9,
          HostSteal.cell(runSteal, steal),
          WalSyncs.meanCell(runSyncs, syncs));
      if (out != null) {
        o.println("Written to " + out);
      }
      o.flush();
    }
    return failed == 0 ? 0 : 1;
  }

  /**
   * One row of the run-time table: the scenario, its seconds, the share of CPU time the host took,
   * the mean WAL sync.
   */
  static String timingRow(
      String scenario, double seconds, String stolenPercent, String walSyncMillis) {
    return String.format(
        "| %s | %.0f | %s | %s |", scenario, seconds, stolenPercent, walSyncMillis);
  }

  /** The sections, then the run-time table of these rows. */
  static List<List<String>> withTimings(List<List<String>> sections, List<String> rows) {
    List<String> t = BenchReport.section("## Run time");
    t.add(
        "Stolen: the share of this machine's CPU time its host gave to others while the scenario"
            + " ran (steal in /proc/stat). WAL sync: the mean time PostgreSQL took to sync its WAL"
            + " to disk meanwhile (pg_stat_wal; n/a unless track_wal_io_timing is on, as in the"
            + " embedded server), which every durable commit waits for. Both show what a busy"
            + " host takes from a run (its CPU, its disk), not this machine's own load.");
    t.add("");
    t.add("| scenario | seconds | stolen (%) | WAL sync (ms) |");
    t.add("|---|---:|---:|---:|");
    t.addAll(rows);
    List<List<String>> all = new ArrayList<>(sections);
    all.add(t);
    return all;
  }

  /** The scenarios {@code --only} names, in its order; all of them without it. */
  static List<Scenario> chosen(List<Scenario> all, List<String> only, CommandLine cli) {
    if (only == null || only.isEmpty()) {
      return all;
    }
    Map<String, Scenario> byName = new LinkedHashMap<>();
    all.forEach(s -> byName.put(s.name(), s));
    List<Scenario> chosen = new ArrayList<>();
    for (String name : only) {
      Scenario s = byName.get(name.trim().toLowerCase(Locale.ROOT));
      if (s == null) {
        throw new CommandLine.ParameterException(
            cli, "--only takes scenario names among " + byName.keySet() + ", not '" + name + "'");
      }
      if (!chosen.contains(s)) {
        chosen.add(s);
      }
    }
    return chosen;
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

  /** The stack's database, checked: reachable, and able to do logical replication. */
  static DatabaseSettings checked(Stack stack) {
    DatabaseSettings db = database(stack);
    Preflight.checkPostgres(db, true);
    Preflight.checkKafka(stack.kafkaBootstrap(), Preflight.DEFAULT_TIMEOUT);
    return db;
  }

  /** The stack's database (no connection is made). */
  static DatabaseSettings database(Stack stack) {
    return new DatabaseSettings(stack.jdbcUrl(), stack.dbUser(), stack.dbPassword());
  }

  static Map<String, String> databaseSettings(DatabaseSettings db) {
    try (var pool = db.pool("bench-settings", 1)) {
      return BenchReport.databaseSettings(DSL.using(pool, SQLDialect.POSTGRES));
    }
  }

  static String mode(Stack stack) {
    return stack.mode().name().toLowerCase(Locale.ROOT);
  }

  static String now() {
    return Instant.now().toString().substring(0, 16) + "Z";
  }

  static Consumer<String> progress(PrintWriter o) {
    return line -> {
      o.println("  " + line);
      o.flush();
    };
  }

  /** An option's value, else {@code otherwise}; refused in one sentence when out of range. */
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

  /**
   * One scenario alone, as its subcommand runs it: its own stack, its section printed and, with
   * {@code out}, written as a document with the machine and settings header.
   */
  static int runAlone(
      CommandLine.Model.CommandSpec spec,
      String name,
      boolean quick,
      Path out,
      Scenario.Runner runner)
      throws Exception {
    PrintWriter o = spec.commandLine().getOut();
    String when = now();
    try (Stack stack = startStack(o)) {
      DatabaseSettings db = checked(stack);
      List<String> section = runner.run(stack, quick, progress(o));
      o.println();
      section.forEach(o::println);
      o.flush();
      if (out != null) {
        List<String> header =
            BenchReport.header(
                when,
                BenchReport.Machine.current(),
                mode(stack),
                databaseSettings(db),
                quick,
                List.of(name));
        Files.writeString(out, BenchReport.document(header, List.of(section)));
        o.println("Written to " + out);
      }
    }
    return 0;
  }

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
  static final class Orders implements Callable<Integer> {
    private static final OrderWriteBench.Settings FULL =
        new OrderWriteBench.Settings(8, Duration.ofSeconds(2), Duration.ofSeconds(5), 3);
    private static final OrderWriteBench.Settings QUICK =
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

    @Option(
        names = "--rounds",
        description = "Rounds; medians are reported (default 3, --quick 1).")
    Integer rounds;

    @Option(
        names = "--out",
        description =
            "Also write the results as Markdown (machine and settings first) to this file.")
    Path out;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    static OrderWriteBench.Settings defaults(boolean quick) {
      return quick ? QUICK : FULL;
    }

    @Override
    public Integer call() throws Exception {
      OrderWriteBench.Settings s = settings();
      return runAlone(spec, "orders", quick, out, (stack, q, p) -> section(stack, s, p));
    }

    /** Explicit options, else the --quick values, else the defaults; refused when out of range. */
    OrderWriteBench.Settings settings() {
      CommandLine cli = spec.commandLine();
      OrderWriteBench.Settings d = defaults(quick);
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
      DatabaseSettings db = database(stack);
      OrderWriteBench.Report report = OrderWriteBench.run(db, s, p);
      return table(report, stack.mode());
    }

    private static List<String> table(OrderWriteBench.Report r, StackMode mode) {
      OrderWriteBench.Settings s = r.settings();
      List<String> lines =
          BenchReport.section(
              "## Order writes (" + Instant.now().toString().substring(0, 16) + "Z)");
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

  @Command(
      name = "relay",
      mixinStandardHelpOptions = true,
      description = {
        "The CDC relay and the polling relay on the same PostgreSQL and broker, in one run: the"
            + " raw outbox insert rate (single-row and multi-row commits), the CDC relay's"
            + " sustained events/s and its ratio to the multi-row insert rate; its capacity with"
            + " the writers in a process of their own, open loop at rising rates until the backlog"
            + " grows, with all processes sharing the cores and with the relay and broker on one"
            + " core and PostgreSQL and the writers on the other (taskset); commit -> consumer"
            + " latency p50/p99/max at fixed open-loop rates for the CDC relay in a JVM of its"
            + " own, warmed up first, at each of its poll.interval.ms values (1, 5, 10 ms; at 200"
            + " and 1,000 events/s) and for the polling relay in the bench's JVM (its default"
            + " interval and a fast one, at 200/s), each latency also split at the relay's send"
            + " (the record's timestamp: before it, decoding and the relay; after it, Kafka), and"
            + " the transactions/s, PostgreSQL CPU and"
            + " JVM CPU each relay costs while idle (the CDC relay's process from /proc). The"
            + " embedded PostgreSQL runs durable (fsync=on, synchronous_commit=on). About 13"
            + " minutes; --quick about 3. Figures are printed next to their goals, never judged."
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
        names = "--high-rate",
        description =
            "The CDC relay's second latency rate, events per second at each poll interval"
                + " (default 1000).")
    Integer highRate;

    @Option(
        names = "--cdc-poll-ms",
        split = ",",
        description =
            "The CDC relay's poll.interval.ms values compared, comma-separated, each 1-1000"
                + " (default 1,5,10): latency at both rates and the idle cost of each.")
    List<Integer> cdcPollMs;

    @Option(
        names = "--latency-seconds",
        description = "Measured seconds per latency run (default 15, --quick 4).")
    Integer latencySeconds;

    @Option(
        names = "--latency-warmup",
        description = "Warm-up seconds per latency run, excluded (default 3, --quick 1).")
    Integer latencyWarmup;

    @Option(
        names = "--relay-warmup",
        description =
            "Seconds the CDC relay's own JVM runs at --high-rate before its latency runs, not"
                + " measured:"
                + " a fresh JVM's first seconds are interpreted and compiled code, and the backlog"
                + " they leave shows as seconds of latency (default 20, --quick 10).")
    Integer relayWarmup;

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

    @Option(
        names = "--capacity-seconds",
        description =
            "Seconds of each open-loop rate of the capacity runs, and of the insert rate measured"
                + " alone before them (default 30, --quick 5).")
    Integer capacitySeconds;

    @Option(
        names = "--relay-jfr",
        paramLabel = "DIR",
        description =
            "Record a JFR profile (settings=profile) of every relay process into DIR, one"
                + " relay-<schema>.jfr each, to see where the relay's time goes (jfr print"
                + " --events jdk.ExecutionSample).")
    Path relayJfr;

    @Option(names = "--out", description = "Also write the results as Markdown to this file.")
    Path out;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      RelayBench.Settings s = settings();
      if (relayJfr != null) {
        if (!java.nio.file.Files.isDirectory(relayJfr)) {
          throw new CommandLine.ParameterException(
              spec.commandLine(), "--relay-jfr must name an existing directory: " + relayJfr);
        }
        RelayProcess.recordProfilesIn(relayJfr);
      }
      return runAlone(spec, "relay", quick, out, (stack, q, p) -> section(stack, s, p));
    }

    static List<String> section(Stack stack, RelayBench.Settings s, Consumer<String> p)
        throws Exception {
      DatabaseSettings db = database(stack);
      RelayBench.Report report = RelayBench.run(db, stack.kafkaBootstrap(), s, p);
      return RelayBench.markdown(report, mode(stack), now());
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
          pick("--high-rate", highRate, d.highRate(), 1, 5_000),
          seconds("--latency-warmup", latencyWarmup, d.latencyWarmup(), 0),
          seconds("--latency-seconds", latencySeconds, d.latencyMeasure(), 1),
          seconds("--relay-warmup", relayWarmup, d.relayWarmup(), 0),
          d.defaultPollInterval(),
          Duration.ofMillis(fastMs),
          cdcPollIntervals(d),
          seconds("--idle-seconds", idleSeconds, d.idle(), 1),
          seconds("--capacity-seconds", capacitySeconds, d.capacityStep(), 2));
    }

    private List<Duration> cdcPollIntervals(RelayBench.Settings d) {
      if (cdcPollMs == null) {
        return d.cdcPollIntervals();
      }
      if (cdcPollMs.isEmpty()) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--cdc-poll-ms needs at least one interval, such as 1,5,10");
      }
      return cdcPollMs.stream()
          .distinct()
          .map(ms -> Duration.ofMillis(pick("--cdc-poll-ms", ms, ms, 1, 1000)))
          .toList();
    }

    private Duration seconds(String name, Integer value, Duration otherwise, int min) {
      return Duration.ofSeconds(pick(name, value, (int) otherwise.toSeconds(), min, 600));
    }

    private int pick(String name, Integer value, int otherwise, int min, int max) {
      return BenchCommand.pick(spec, name, value, otherwise, min, max);
    }
  }

  @Command(
      name = "connect",
      mixinStandardHelpOptions = true,
      description = {
        "The outbox on Kafka Connect next to the embedded relay and the raw outbox insert rate,"
            + " in one run: each round writes a backlog of outbox rows (8 writers flat out, 50"
            + " rows per commit: the insert rate, the limit) after making three slots on it, then"
            + " drains it from each in turn: Debezium on a Connect worker with exactly-once source"
            + " support and the configuration `relay connect-config` prints, the same on a"
            + " worker with exactly-once disabled, and the embedded CDC relay in a JVM of its own."
            + " Prints each one's events/s (first record on its topic to the last,"
            + " read_committed), its ratio to the insert rate, and exactly-once / exactly-once"
            + " off. A warm-up round first, not counted. About 4 minutes on 2 busy cores;"
            + " --quick under 2."
      })
  static final class Connect implements Callable<Integer> {
    @Option(names = "--quick", description = "One round, a smaller backlog; explicit options win.")
    boolean quick;

    @Option(
        names = "--events",
        description = "Outbox rows in each round's backlog (default 30000, --quick 10000).")
    Integer events;

    @Option(names = "--rounds", description = "Measured rounds; medians (default 3, --quick 1).")
    Integer rounds;

    @Option(names = "--out", description = "Also write the table as Markdown to this file.")
    Path out;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    /** Explicit options, else the --quick values, else the defaults; refused when out of range. */
    ConnectBench.Settings settings() {
      ConnectBench.Settings d = quick ? ConnectBench.Settings.QUICK : ConnectBench.Settings.DEFAULT;
      return new ConnectBench.Settings(
          pick(spec, "--events", events, d.events(), 1_000, 1_000_000),
          d.writers(),
          d.rowsPerTx(),
          pick(spec, "--rounds", rounds, d.rounds(), 1, 20));
    }

    @Override
    public Integer call() throws Exception {
      ConnectBench.Settings s = settings();
      return runAlone(spec, "connect", quick, out, (stack, q, p) -> section(stack, s, p));
    }

    static List<String> section(Stack stack, ConnectBench.Settings s, Consumer<String> p)
        throws Exception {
      // beside the bench's stack: the workers' properties and output
      Path files =
          StackConfig.fromEnvironment(System.getenv()).dataDir().resolveSibling("bench-connect");
      ConnectBench.Report report =
          ConnectBench.run(database(stack), stack.kafkaBootstrap(), files, s, p);
      p.accept("the Connect workers' output is in " + files);
      return ConnectBench.markdown(report, now());
    }
  }

  @Command(
      name = "lanes",
      mixinStandardHelpOptions = true,
      description = {
        "Priority lanes under a 4,000-order bulk backlog: billing's inbox consumer (invoice issuer"
            + " off; \"invoiced\" = the consumer applied the order) with priority on and then off"
            + " (one consumer of both topics, the limit), interactive orders sent open loop at a"
            + " fixed rate while the backlog drains. Prints interactive p50/p99/max from the"
            + " intended send time, the p99 ratio off/on next to the goal (< 2 s), and how long"
            + " the backlog took to drain in each mode. Fresh schema, topics and group per run."
            + " Under a minute when the backlog drains (up to 4½ minutes when it does not); --quick one run per mode and a 12 s window."
      })
  static final class Lanes implements Callable<Integer> {
    @Option(
        names = "--quick",
        description =
            "One run per mode instead of two and a 12 s window instead of 60 s (indicative); explicit options win.")
    boolean quick;

    @Option(names = "--rate", description = "Interactive orders per second, open loop (default 5).")
    Integer rate;

    @Option(
        names = "--bulk",
        description = "Bulk orders queued before the interactive load (default 4000).")
    Integer bulk;

    @Option(names = "--rounds", description = "Runs per mode, alternating (default 2, --quick 1).")
    Integer rounds;

    @Option(names = "--out", description = "Also write the results as Markdown to this file.")
    Path out;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      LanesBench.Settings s = settings();
      return runAlone(spec, "lanes", quick, out, (stack, q, p) -> section(stack, s, p));
    }

    /** Explicit options, else the --quick values, else the defaults; refused when out of range. */
    LanesBench.Settings settings() {
      LanesBench.Settings d = quick ? LanesBench.Settings.QUICK : LanesBench.Settings.DEFAULT;
      try {
        return new LanesBench.Settings(
            bulk == null ? d.bulk() : bulk,
            rate == null ? d.rate() : rate,
            d.warmupOrders(),
            rounds == null ? d.rounds() : rounds,
            d.concurrency(),
            d.maxWindow());
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--" + e.getMessage());
      }
    }

    static List<String> section(Stack stack, LanesBench.Settings s, Consumer<String> p)
        throws Exception {
      DatabaseSettings db = database(stack);
      return LanesBench.markdown(LanesBench.run(db, stack.kafkaBootstrap(), s, p), now());
    }
  }

  @Command(
      name = "e2e",
      mixinStandardHelpOptions = true,
      description = {
        "The whole path at a fixed open-loop rate: order placed (order + outbox row in one"
            + " transaction) -> CDC relay -> Kafka -> billing's inbox consumer -> invoice issuer"
            + " -> integrator simulator (5-20 ms, no faults) -> ISSUED. Prints placed -> applied"
            + " and placed -> issued p50/p99/max from the intended place time (warm-up excluded)"
            + " and the achieved rates as ratios to the offered rate. About a minute and a half"
            + " (the wait for the last invoices included); --quick about half a minute."
      })
  static final class E2e implements Callable<Integer> {
    @Option(
        names = "--quick",
        description = "Shorter windows (indicative figures); explicit options win.")
    boolean quick;

    @Option(names = "--rate", description = "Orders per second, open loop (default 50).")
    Integer rate;

    @Option(names = "--seconds", description = "Measured seconds (default 30, --quick 8).")
    Integer seconds;

    @Option(
        names = "--warmup",
        description = "Warm-up seconds before them, excluded (default 5, --quick 2).")
    Integer warmup;

    @Option(names = "--out", description = "Also write the results as Markdown to this file.")
    Path out;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      E2eBench.Settings s = settings();
      return runAlone(spec, "e2e", quick, out, (stack, q, p) -> section(stack, s, p));
    }

    /** Explicit options, else the --quick values, else the defaults; refused when out of range. */
    E2eBench.Settings settings() {
      E2eBench.Settings d = quick ? E2eBench.Settings.QUICK : E2eBench.Settings.DEFAULT;
      try {
        return new E2eBench.Settings(
            rate == null ? d.rate() : rate,
            warmup == null ? d.warmup() : Duration.ofSeconds(warmup),
            seconds == null ? d.measure() : Duration.ofSeconds(seconds),
            d.integratorMin(),
            d.integratorMax());
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--" + e.getMessage());
      }
    }

    static List<String> section(Stack stack, E2eBench.Settings s, Consumer<String> p)
        throws Exception {
      DatabaseSettings db = database(stack);
      return E2eBench.markdown(E2eBench.run(db, stack.kafkaBootstrap(), s, p), now());
    }
  }

  @Command(
      name = "numbering",
      mixinStandardHelpOptions = true,
      description = {
        "Gapless numbering next to its limit, measured in the same run on the same PostgreSQL"
            + " (the embedded one durable: fsync=on, synchronous_commit=on): just-in-time"
            + " reservations/s on one series vs the single-row counter update rate (goal >= 0.8);"
            + " and, with one client, a reservation's time, client CPU and WAL bytes next to a"
            + " counter update's (the WAL also by relation, from pg_walinspect, installed if"
            + " missing). Rounds alternate the measurements; medians are reported. About a"
            + " minute with the drafts' creation; --quick about 30 s. The integrator part is"
            + " `bench billing`."
      })
  static final class Numbering implements Callable<Integer> {
    @Option(
        names = "--quick",
        description = "One round with shorter windows; explicit options win.")
    boolean quick;

    @Option(
        names = "--clients",
        description = "Closed-loop clients of every measurement (default 8).")
    Integer clients;

    @Option(
        names = "--rounds",
        description = "Rounds; medians are reported (default 3, --quick 1).")
    Integer rounds;

    @Option(names = "--out", description = "Also write the table as Markdown to this file.")
    Path out;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    /** Explicit options, else the --quick values, else the defaults; refused when out of range. */
    NumberingBench.Settings settings() {
      NumberingBench.Settings d =
          quick ? NumberingBench.Settings.QUICK : NumberingBench.Settings.DEFAULT;
      return new NumberingBench.Settings(
          pick(spec, "--clients", clients, d.clients(), 1, 256),
          d.warmup(),
          d.measure(),
          pick(spec, "--rounds", rounds, d.rounds(), 1, 20));
    }

    @Override
    public Integer call() throws Exception {
      NumberingBench.Settings s = settings();
      return runAlone(spec, "numbering", quick, out, (stack, q, p) -> section(stack, s, p));
    }

    static List<String> section(Stack stack, NumberingBench.Settings s, Consumer<String> p)
        throws Exception {
      DatabaseSettings db = database(stack);
      NumberingBench.Report report = NumberingBench.run(db, s, p);
      Map<String, String> facts = NumberingBench.facts(report.database(), mode(stack));
      facts.put(
          "Load",
          String.format(
              "%d closed-loop clients; %d round(s) of %d s windows after %d s warm-up",
              s.clients(), s.rounds(), s.measure().toSeconds(), s.warmup().toSeconds()));
      return NumberingBench.table("Numbering (" + now() + ")", report.rows(), facts);
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
            + " (goal >= 0.9); then one client applying records one after the other with the"
            + " inbox row and without it: time, client CPU and WAL per record, and where the"
            + " WAL went by relation (pg_walinspect, installed if missing). About 2 minutes;"
            + " --quick about 40 s."
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
    BillingBench.Settings settings() {
      BillingBench.Settings d = quick ? BillingBench.Settings.QUICK : BillingBench.Settings.DEFAULT;
      int m = pick(spec, "--messages", messages, d.messages(), 100, 1_000_000);
      return new BillingBench.Settings(
          d.latency(),
          d.inFlight(),
          d.issuerWarmup(),
          Duration.ofSeconds(
              pick(
                  spec,
                  "--issuer-seconds",
                  issuerSeconds,
                  (int) d.issuerMeasure().toSeconds(),
                  1,
                  600)),
          m,
          Math.min(d.warmupMessages(), Math.max(100, m / 5)),
          pick(spec, "--concurrency", concurrency, d.concurrency(), 1, 256),
          pick(spec, "--rounds", rounds, d.rounds(), 1, 20));
    }

    @Override
    public Integer call() throws Exception {
      BillingBench.Settings s = settings();
      return runAlone(spec, "billing", quick, out, (stack, q, p) -> section(stack, s, p));
    }

    static List<String> section(Stack stack, BillingBench.Settings s, Consumer<String> p)
        throws Exception {
      DatabaseSettings db = database(stack);
      NumberingBench.Report report =
          BillingBench.run(db, stack.kafkaBootstrap(), s, "bench_billing", p);
      return BillingBench.markdown(report, s, mode(stack), now());
    }
  }

  @Command(
      name = "security",
      mixinStandardHelpOptions = true,
      description = {
        "What securing Kafka costs the relay and billing, measured against the same run on the"
            + " stack's PLAINTEXT broker: a second broker of the same build is started whose only"
            + " client listener is SASL_SSL (SCRAM-SHA-512 over TLS with a CA made for the run),"
            + " and in alternating rounds the CDC relay drains a backlog of outbox rows and"
            + " billing's inbox consumer applies pre-produced OrderPlaced records on each. Prints"
            + " both rates and SASL_SSL / PLAINTEXT. About two and a half minutes; --quick about"
            + " forty seconds."
      })
  static final class Security implements Callable<Integer> {
    @Option(
        names = "--quick",
        description = "One round with smaller backlogs; explicit options win.")
    boolean quick;

    @Option(
        names = "--rounds",
        description = "Rounds, each measuring both brokers; medians are reported (default 3).")
    Integer rounds;

    @Option(names = "--out", description = "Also write the table as Markdown to this file.")
    Path out;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    /** Explicit options, else the --quick values, else the defaults; refused when out of range. */
    SecurityBench.Settings settings() {
      SecurityBench.Settings d =
          quick ? SecurityBench.Settings.QUICK : SecurityBench.Settings.DEFAULT;
      return new SecurityBench.Settings(
          d.relayEvents(),
          d.rowsPerTx(),
          d.messages(),
          d.warmupMessages(),
          d.concurrency(),
          pick(spec, "--rounds", rounds, d.rounds(), 1, 20));
    }

    @Override
    public Integer call() throws Exception {
      SecurityBench.Settings s = settings();
      return runAlone(spec, "security", quick, out, (stack, q, p) -> section(stack, s, p));
    }

    static List<String> section(Stack stack, SecurityBench.Settings s, Consumer<String> p)
        throws Exception {
      // beside the bench's stack, its content replaced at each run
      Path dir =
          StackConfig.fromEnvironment(System.getenv())
              .dataDir()
              .resolveSibling("bench-secured-kafka");
      p.accept("starting a second broker whose only client listener is SASL_SSL ...");
      try (SecuredKafka secured =
          SecuredKafka.start(
              dir.resolve("broker"), TestCertificates.create(dir.resolve("ca")).forKafka())) {
        Map<String, String> props = new java.util.TreeMap<>();
        secured.superUserProperties().forEach((k, v) -> props.put(k, String.valueOf(v)));
        SecurityBench.Report report =
            SecurityBench.run(
                database(stack),
                KafkaClients.of(stack.kafkaBootstrap()),
                "the stack's broker, PLAINTEXT",
                KafkaClients.of(secured.bootstrapServers(), props, "the bench's secured broker"),
                "a second broker, SASL_SSL (SCRAM-SHA-512; TLS with a CA made for the run)",
                s,
                p);
        return SecurityBench.markdown(report, now());
      }
    }
  }
}
