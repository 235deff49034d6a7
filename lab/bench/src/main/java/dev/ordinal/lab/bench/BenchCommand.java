package dev.ordinal.lab.bench;

import dev.ordinal.lab.devstack.Stack;
import dev.ordinal.messaging.db.DatabaseSettings;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
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
      OrdersBenchCommand.class,
      RelayBenchCommand.class,
      ConnectBenchCommand.class,
      NumberingBenchCommand.class,
      BillingBenchCommand.class,
      LanesBenchCommand.class,
      E2eBenchCommand.class,
      SecurityBenchCommand.class
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
          scenario(
              "orders",
              OrdersBenchCommand.FULL,
              OrdersBenchCommand.QUICK,
              OrdersBenchCommand::section),
          scenario(
              "relay", RelayBench.Settings.DEFAULT, RELAY_ALL_QUICK, RelayBenchCommand::section),
          scenario(
              "connect",
              ConnectBench.Settings.DEFAULT,
              ConnectBench.Settings.QUICK,
              ConnectBenchCommand::section),
          scenario(
              "numbering",
              NumberingBench.Settings.DEFAULT,
              NumberingBench.Settings.QUICK,
              NumberingBenchCommand::section),
          scenario(
              "billing",
              BillingBench.Settings.DEFAULT,
              BillingBench.Settings.QUICK,
              BillingBenchCommand::section),
          scenario(
              "lanes",
              LanesBench.Settings.DEFAULT,
              LanesBench.Settings.QUICK,
              LanesBenchCommand::section),
          scenario(
              "e2e", E2eBench.Settings.DEFAULT, E2eBench.Settings.QUICK, E2eBenchCommand::section),
          scenario(
              "security",
              SecurityBench.Settings.DEFAULT,
              SecurityBench.Settings.QUICK,
              SecurityBenchCommand::section));

  /** Scenario {@code name}: its section with {@code full}, or with {@code quick} under --quick. */
  static <S> Scenario scenario(String name, S full, S quick, ScenarioCommand.Section<S> section) {
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

  /** A scenario's section, and whether it failed (its section then says how). */
  private record Outcome(List<String> section, boolean failed) {}

  @Override
  public Integer call() throws Exception {
    List<Scenario> chosen = chosen(SCENARIOS, only, spec.commandLine());
    PrintWriter o = spec.commandLine().getOut();
    String when = BenchRun.now();
    long start = System.nanoTime();
    Optional<HostSteal> runSteal = HostSteal.now();
    List<List<String>> sections = new ArrayList<>();
    List<String> timings = new ArrayList<>();
    int failed = 0;
    try (Stack stack = BenchRun.startStack(o)) {
      DatabaseSettings db = BenchRun.checked(stack);
      Optional<WalSyncs> runSyncs = WalSyncs.read(db);
      // one reading ends a scenario and starts the next
      Optional<HostSteal> steal = HostSteal.now();
      Optional<WalSyncs> syncs = runSyncs;
      List<String> header =
          BenchReport.header(
              when,
              BenchReport.Machine.current(),
              BenchRun.mode(stack),
              BenchRun.databaseSettings(db),
              quick,
              chosen.stream().map(Scenario::name).toList());
      header.forEach(o::println);
      for (Scenario s : chosen) {
        long t0 = System.nanoTime();
        Outcome outcome = run(s, stack, o);
        failed += outcome.failed() ? 1 : 0;
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
        sections.add(outcome.section());
        print(o, outcome.section());
        if (out != null) {
          Files.writeString(out, BenchReport.document(header, withTimings(sections, timings)));
        }
      }
      printTotals(
          o, timings, start, HostSteal.cell(runSteal, steal), WalSyncs.meanCell(runSyncs, syncs));
    }
    return failed == 0 ? 0 : 1;
  }

  /** The run-time table, then the whole run's seconds, host steal and mean WAL sync. */
  private void printTotals(
      PrintWriter o, List<String> timings, long start, String stolen, String walSync) {
    o.println();
    withTimings(List.of(), timings).get(0).forEach(o::println);
    o.printf(
        "All scenarios took %.0f s, stack start included; the host took %s%% of the CPU time"
            + " (steal); a WAL sync took %s ms on average.%n",
        (System.nanoTime() - start) / 1e9, stolen, walSync);
    if (out != null) {
      o.println("Written to " + out);
    }
    o.flush();
  }

  /** Scenario {@code s} under its heading: its section, or one saying it failed and why. */
  private Outcome run(Scenario s, Stack stack, PrintWriter o) {
    o.println();
    o.println("== " + s.name() + (quick ? " (quick)" : "") + " ==");
    o.flush();
    try {
      return new Outcome(s.runner().run(stack, quick, BenchRun.progress(o)), false);
    } catch (Exception e) {
      List<String> section =
          List.of("## " + s.name() + " (" + BenchRun.now() + ")", "", "Failed: " + e);
      o.println("  " + s.name() + " failed: " + e);
      return new Outcome(section, true);
    }
  }

  private static void print(PrintWriter o, List<String> section) {
    o.println();
    section.forEach(o::println);
    o.flush();
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
}
