package dev.ordinal.lab.bench;

import dev.ordinal.lab.devstack.Stack;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code bench billing}: the invoice issuer and billing's consumer next to their limits. */
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
final class BillingBenchCommand extends ScenarioCommand<BillingBench.Settings> {
  @Option(
      names = "--quick",
      description = "Shorter windows and fewer records; explicit options win.")
  boolean quick;

  @Option(
      names = "--messages",
      description = "Measured OrderPlaced records per consumer run (default 10000, --quick 3000).")
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

  @Mixin MarkdownOut.Table out;

  BillingBenchCommand() {
    super(BillingBench.Settings.DEFAULT, BillingBench.Settings.QUICK, BillingBenchCommand::section);
  }

  @Override
  BillingBench.Settings settings() {
    BillingBench.Settings d = defaults();
    int m = pick("--messages", messages, d.messages(), 100, 1_000_000);
    int issuer =
        pick("--issuer-seconds", issuerSeconds, (int) d.issuerMeasure().toSeconds(), 1, 600);
    return new BillingBench.Settings(
        d.latency(),
        d.inFlight(),
        d.issuerWarmup(),
        Duration.ofSeconds(issuer),
        m,
        Math.min(d.warmupMessages(), Math.max(100, m / 5)),
        pick("--concurrency", concurrency, d.concurrency(), 1, 256),
        pick("--rounds", rounds, d.rounds(), 1, 20));
  }

  static List<String> section(Stack stack, BillingBench.Settings s, Consumer<String> p)
      throws Exception {
    NumberingBench.Report report =
        BillingBench.run(BenchRun.database(stack), stack.kafkaBootstrap(), s, "bench_billing", p);
    return BillingBench.markdown(report, s, BenchRun.mode(stack), BenchRun.now());
  }
}
