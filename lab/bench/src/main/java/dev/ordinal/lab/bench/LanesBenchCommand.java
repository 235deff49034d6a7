package dev.ordinal.lab.bench;

import dev.ordinal.lab.devstack.Stack;
import java.util.List;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code bench lanes}: interactive orders' latency under a bulk backlog, priority on and off. */
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
final class LanesBenchCommand extends ScenarioCommand<LanesBench.Settings> {
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

  @Mixin MarkdownOut.Results out;

  LanesBenchCommand() {
    super(LanesBench.Settings.DEFAULT, LanesBench.Settings.QUICK, LanesBenchCommand::section);
  }

  @Override
  LanesBench.Settings settings() {
    LanesBench.Settings d = defaults();
    return named(
        () ->
            new LanesBench.Settings(
                bulk == null ? d.bulk() : bulk,
                rate == null ? d.rate() : rate,
                d.warmupOrders(),
                rounds == null ? d.rounds() : rounds,
                d.concurrency(),
                d.maxWindow()));
  }

  static List<String> section(Stack stack, LanesBench.Settings s, Consumer<String> p)
      throws Exception {
    LanesBench.Report report =
        LanesBench.run(BenchRun.database(stack), stack.kafkaBootstrap(), s, p);
    return LanesBench.markdown(report, BenchRun.now());
  }
}
