package dev.ordinal.lab.bench;

import dev.ordinal.lab.devstack.Stack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code bench relay}: the CDC relay and the polling relay next to the outbox insert rate. */
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
final class RelayBenchCommand extends ScenarioCommand<RelayBench.Settings> {
  @Option(
      names = "--quick",
      description = "Shorter rounds and windows (indicative figures); explicit options win.")
  boolean quick;

  @Option(
      names = "--clients",
      description = "Closed-loop writers for the insert rates and the CDC throughput (default 8).")
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

  @Mixin MarkdownOut.Results out;

  RelayBenchCommand() {
    super(RelayBench.Settings.DEFAULT, RelayBench.Settings.QUICK, RelayBenchCommand::section);
  }

  /** With --relay-jfr, every relay process records its profile into that existing directory. */
  @Override
  void checkOthers() {
    if (relayJfr != null) {
      if (!Files.isDirectory(relayJfr)) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--relay-jfr must name an existing directory: " + relayJfr);
      }
      RelayProcess.recordProfilesIn(relayJfr);
    }
  }

  static List<String> section(Stack stack, RelayBench.Settings s, Consumer<String> p)
      throws Exception {
    RelayBench.Report report =
        RelayBench.run(BenchRun.database(stack), stack.kafkaBootstrap(), s, p);
    return RelayReport.markdown(report, BenchRun.mode(stack), BenchRun.now());
  }

  @Override
  RelayBench.Settings settings() {
    RelayBench.Settings d = defaults();
    int fastMs = pick("--fast-poll-ms", fastPollMs, (int) d.fastPollInterval().toMillis(), 1, 500);
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
}
