package dev.ordinal.lab.bench;

import dev.ordinal.lab.devstack.Stack;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code bench e2e}: the whole path from order placed to invoice issued, at a fixed rate. */
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
final class E2eBenchCommand extends ScenarioCommand<E2eBench.Settings> {
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

  @Mixin MarkdownOut.Results out;

  E2eBenchCommand() {
    super(E2eBench.Settings.DEFAULT, E2eBench.Settings.QUICK, E2eBenchCommand::section);
  }

  @Override
  E2eBench.Settings settings() {
    E2eBench.Settings d = defaults();
    return named(
        () ->
            new E2eBench.Settings(
                rate == null ? d.rate() : rate,
                warmup == null ? d.warmup() : Duration.ofSeconds(warmup),
                seconds == null ? d.measure() : Duration.ofSeconds(seconds),
                d.integratorMin(),
                d.integratorMax()));
  }

  static List<String> section(Stack stack, E2eBench.Settings s, Consumer<String> p)
      throws Exception {
    E2eBench.Report report = E2eBench.run(BenchRun.database(stack), stack.kafkaBootstrap(), s, p);
    return E2eBench.markdown(report, BenchRun.now());
  }
}
