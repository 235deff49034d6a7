package dev.ordinal.lab.demo;

import dev.ordinal.cli.DurationConverter;
import dev.ordinal.lab.devstack.StackConfig;
import dev.ordinal.lab.devstack.StackMode;
import dev.ordinal.lab.numbering.StrategiesRun;
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
      "Starts the embedded stack (real PostgreSQL and Kafka) and the integrator and payment"
          + " gateway simulators, then each service in a process of its own, the way they run in"
          + " production: the CDC relay, two billing instances in one consumer group, and"
          + " order-service. Drives a mix for --duration: interactive orders over HTTP over"
          + " several invoice series (some retried with the same Idempotency-Key), bulk batches,"
          + " cancellations, records redelivered under the same message id and re-published under"
          + " a new one, integrator latency and failures. With --chaos it also kills the relay"
          + " and billing instances with SIGKILL at random moments and restarts them, restarts"
          + " PostgreSQL (fast shutdown) and stops the Kafka broker for 5 s, has the integrator"
          + " store 5%% of the invoices only after billing gave up on them (late accepts), and"
          + " delivers the cancellation of 5 orders before their placement; the summary lists"
          + " each fault with the time from the server's return to every service ready again.",
      "",
      "Shows a live line (orders placed, relayed, invoiced, duplicates skipped, consumer lag,"
          + " slot lag), waits until every order is invoiced and charged, then prints a summary"
          + " (counts per stage, invoices per series with the gap audit, integrator calls,"
          + " commit-to-applied and commit-to-issued latency) and whether each of the 7"
          + " invariants of DESIGN.md held. Everything it started is stopped on exit and on"
          + " Ctrl-C; the services' logs are in $ORDINAL_HOME/logs.",
      "",
      "With --strategies: the numbering lab instead. Four numbering strategies (MAX()+1 at send"
          + " time, numbering at enqueue time, one transaction with the integrator call inside,"
          + " just-in-time reservation) on the same workload with injected failures, then an"
          + " order's message applied by 4 threads at once by a naive check-then-act consumer and"
          + " by the inbox; prints duplicates, gaps and throughput as a table.",
      "",
      "Exit status: 0 when every invariant held (with --strategies: when the just-in-time and"
          + " inbox rows hold); 1 when one did not; 2 on bad options."
    })
public final class DemoCommand implements Callable<Integer> {
  @Option(
      names = "--duration",
      defaultValue = "60s",
      converter = DurationConverter.class,
      description =
          "How long to place orders, e.g. 30s, 2m or PT30S (1 s to 1 h, default ${DEFAULT-VALUE}).")
  Duration duration;

  @Option(
      names = "--orders",
      defaultValue = "0",
      description =
          "Stop placing orders after this many, even before --duration has passed (0: no limit,"
              + " up to 10000; default ${DEFAULT-VALUE}).")
  int orders;

  @Option(
      names = "--chaos",
      description =
          "Also, while driving: kill the relay and billing instances with SIGKILL and restart"
              + " them, restart PostgreSQL, stop the broker for 5 s then start it again on its"
              + " ports and data, have the integrator accept 5%% of the invoices late, and deliver"
              + " 5 cancellations before their orders.")
  boolean chaos;

  @Option(
      names = "--faults",
      split = ",",
      converter = DemoCommand.FaultConverter.class,
      description =
          "Faults to inject one after the other while driving, instead of --chaos's: pg-restart,"
              + " pg-terminate (every backend), pg-down=60s, kafka-down=60s, kill-relay,"
              + " kill-billing; e.g. --faults pg-restart,kafka-down=30s.")
  java.util.List<FaultInjector.Fault> faults;

  @Option(
      names = "--rate",
      defaultValue = "0",
      description =
          "Interactive orders per second, placed open loop (up to 64 requests at once; 1-500);"
              + " 0 places one at a time with a short pause between (default ${DEFAULT-VALUE}).")
  int rate;

  @Option(
      names = "--timeout",
      defaultValue = "120s",
      converter = DurationConverter.class,
      description =
          "How long to wait, after driving, for every order to be invoiced and charged (default"
              + " ${DEFAULT-VALUE}).")
  Duration timeout;

  @Option(
      names = "--seed",
      description = "Seed of the random choices (orders, duplicates, chaos); default: random.")
  Long seed;

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
    if (orders < 0 || orders > 10_000) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--orders must be between 0 and 10000, not " + orders);
    }
    if (duration.compareTo(Duration.ofSeconds(1)) < 0
        || duration.compareTo(Duration.ofHours(1)) > 0) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--duration must be 1 s to 1 h, not " + duration);
    }
    if (chaos && duration.compareTo(FaultPlan.MIN_CHAOS_DURATION) < 0) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--chaos needs a --duration of at least "
              + Console.human(FaultPlan.MIN_CHAOS_DURATION)
              + ", not "
              + Console.human(duration));
    }
    if (rate < 0 || rate > 500) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--rate must be 0 to 500, not " + rate);
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
    if (stack.mode() != StackMode.EMBEDDED) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "demo runs on its own embedded stack: unset ORDINAL_DB_URL, ORDINAL_KAFKA_BOOTSTRAP"
              + " and ORDINAL_STACK.");
    }
    DemoRun.Options options =
        new DemoRun.Options(
            duration,
            orders,
            timeout,
            chaos,
            json,
            seed != null ? seed : new java.util.Random().nextLong(),
            rate,
            faults == null ? java.util.List.of() : faults);
    return new DemoRun(stack, options, out).run().map(r -> r.summary().exitStatus()).orElse(1);
  }

  /** {@code pg-down=60s} and the like. */
  static final class FaultConverter implements CommandLine.ITypeConverter<FaultInjector.Fault> {
    @Override
    public FaultInjector.Fault convert(String value) throws Exception {
      String[] parts = value.trim().split("=", 2);
      FaultInjector.Kind kind =
          switch (parts[0]) {
            case "pg-restart" -> FaultInjector.Kind.PG_RESTART;
            case "pg-terminate" -> FaultInjector.Kind.PG_TERMINATE;
            case "pg-down" -> FaultInjector.Kind.PG_DOWN;
            case "kafka-down" -> FaultInjector.Kind.KAFKA_DOWN;
            case "kill-relay" -> FaultInjector.Kind.KILL_RELAY;
            case "kill-billing" -> FaultInjector.Kind.KILL_BILLING;
            default ->
                throw new CommandLine.TypeConversionException(
                    "'"
                        + parts[0]
                        + "' is not a fault; use pg-restart, pg-terminate, pg-down=60s,"
                        + " kafka-down=60s, kill-relay or kill-billing");
          };
      boolean timed = kind == FaultInjector.Kind.PG_DOWN || kind == FaultInjector.Kind.KAFKA_DOWN;
      if (timed != (parts.length == 2)) {
        throw new CommandLine.TypeConversionException(
            timed
                ? parts[0] + " needs how long, e.g. " + parts[0] + "=60s"
                : parts[0] + " takes no duration");
      }
      Duration outage = timed ? new DurationConverter().convert(parts[1]) : Duration.ZERO;
      if (timed && (outage.isZero() || outage.compareTo(Duration.ofMinutes(10)) > 0)) {
        throw new CommandLine.TypeConversionException(
            parts[0] + " must last 1 s to 10 min, not " + parts[1]);
      }
      return new FaultInjector.Fault(kind, outage);
    }
  }
}
