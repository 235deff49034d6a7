package dev.ordinal.cli;

import dev.ordinal.infra.StackConfig;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Starts the embedded stack (real PostgreSQL and Kafka), the CDC relay, order-service and"
          + " billing; places orders, waits until each has exactly one invoice, redelivers a"
          + " record to show the inbox skipping it, prints a summary and stops everything.",
      "",
      "With --strategies: the numbering lab instead. Four numbering strategies (MAX()+1 at send"
          + " time, numbering at enqueue time, one transaction with the integrator call inside,"
          + " just-in-time reservation) on the same workload with injected failures, then an"
          + " order's message applied by 4 threads at once by a naive check-then-act consumer and"
          + " by the inbox; prints duplicates, gaps and throughput as a table.",
      "",
      "Exit status: 0 when every order got exactly one invoice and the redelivery changed"
          + " nothing (with --strategies: when the just-in-time and inbox rows hold); 1 when a"
          + " check failed; 2 on bad configuration."
    })
final class DemoCommand implements Callable<Integer> {
  @Option(
      names = "--orders",
      defaultValue = "5",
      description = "Orders to place (1-10000, default ${DEFAULT-VALUE}).")
  int orders;

  @Option(
      names = "--timeout",
      defaultValue = "PT60S",
      description = "How long to wait for the invoices, ISO-8601 (default ${DEFAULT-VALUE}).")
  Duration timeout;

  @Option(
      names = "--keep-data",
      description = "Reuse the embedded stack's data from the last run instead of starting clean.")
  boolean keepData;

  @Option(
      names = "--json",
      description =
          "Also print the summary as one JSON object on the last line, with an 'invariants' object"
              + " mapping each invariant of DESIGN.md to true (held) or false.")
  boolean json;

  @Option(
      names = "--strategies",
      description =
          "Run the numbering lab instead of the demo: a table of duplicates, gaps and throughput"
              + " per numbering strategy (schema "
              + StrategiesRun.SCHEMA
              + ", recreated each run).")
  boolean strategies;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (orders < 1 || orders > 10_000) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--orders must be between 1 and 10000, not " + orders);
    }
    if (timeout.isNegative() || timeout.isZero()) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--timeout must be positive, not " + timeout);
    }
    PrintWriter out = spec.commandLine().getOut();
    StackConfig stack = StackConfig.fromEnvironment(System.getenv()).withKeepData(keepData);
    if (strategies) {
      return new StrategiesRun(stack, out).run() ? 0 : 1;
    }
    return new DemoRun(stack, orders, timeout, out, json).run() ? 0 : 1;
  }
}
