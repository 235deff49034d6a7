package dev.ordinal.lab.bench;

import dev.ordinal.lab.devstack.Stack;
import dev.ordinal.lab.devstack.StackConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code bench connect}: the outbox on Kafka Connect next to the embedded relay. */
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
final class ConnectBenchCommand extends ScenarioCommand<ConnectBench.Settings> {
  @Option(names = "--quick", description = "One round, a smaller backlog; explicit options win.")
  boolean quick;

  @Option(
      names = "--events",
      description = "Outbox rows in each round's backlog (default 30000, --quick 10000).")
  Integer events;

  @Option(names = "--rounds", description = "Measured rounds; medians (default 3, --quick 1).")
  Integer rounds;

  @Mixin MarkdownOut.Table out;

  ConnectBenchCommand() {
    super(ConnectBench.Settings.DEFAULT, ConnectBench.Settings.QUICK, ConnectBenchCommand::section);
  }

  @Override
  ConnectBench.Settings settings() {
    ConnectBench.Settings d = defaults();
    return new ConnectBench.Settings(
        pick("--events", events, d.events(), 1_000, 1_000_000),
        d.writers(),
        d.rowsPerTx(),
        pick("--rounds", rounds, d.rounds(), 1, 20));
  }

  static List<String> section(Stack stack, ConnectBench.Settings s, Consumer<String> p)
      throws Exception {
    // beside the bench's stack: the workers' properties and output
    Path files =
        StackConfig.fromEnvironment(System.getenv()).dataDir().resolveSibling("bench-connect");
    ConnectBench.Report report =
        ConnectBench.run(BenchRun.database(stack), stack.kafkaBootstrap(), files, s, p);
    p.accept("the Connect workers' output is in " + files);
    return ConnectBench.markdown(report, BenchRun.now());
  }
}
