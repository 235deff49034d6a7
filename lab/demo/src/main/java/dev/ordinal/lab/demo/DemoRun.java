package dev.ordinal.lab.demo;

import dev.ordinal.lab.devstack.StackConfig;
import dev.ordinal.order.PlacedOrder;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The demo: the {@link DemoCluster} (the embedded stack and the two simulators here, each service
 * in a process of its own), the {@link LoadDriver}'s order mix over order-service's API while the
 * {@link FaultPlan} injects its faults, then, once everything has settled, the {@link Evidence}
 * read by the {@link EvidenceReader}, judged by {@link InvariantChecks} and printed as a {@link
 * DemoSummary}. Everything it starts is stopped on return and on Ctrl-C; the children also exit
 * when this process dies.
 */
final class DemoRun {
  /**
   * What to run.
   *
   * @param chaos kill the relay and billing instances and restart PostgreSQL and the broker while
   *     driving ({@link FaultPlan#chaos}), have the integrator accept some submissions late and
   *     deliver some cancellations before their orders
   * @param rate interactive orders per second, placed open loop by up to {@link
   *     LoadDriver#MAX_IN_FLIGHT} requests at once; 0 for one request at a time with a short pause
   * @param faults the faults injected while driving, one after the other, spread over the drive;
   *     empty with {@code chaos} for {@link FaultPlan#chaos}
   */
  record Options(
      Duration duration,
      int maxOrders,
      Duration settleTimeout,
      boolean chaos,
      boolean json,
      long seed,
      int rate,
      List<FaultInjector.Fault> faults) {
    Options {
      if (duration.isNegative() || duration.isZero()) {
        throw new IllegalArgumentException("duration must be positive");
      }
      if (rate < 0) {
        throw new IllegalArgumentException("rate must not be negative");
      }
      faults = faults == null || faults.isEmpty() ? List.of() : List.copyOf(faults);
    }

    Options(
        Duration duration,
        int maxOrders,
        Duration settleTimeout,
        boolean chaos,
        boolean json,
        long seed) {
      this(duration, maxOrders, settleTimeout, chaos, json, seed, 0, List.of());
    }

    /** The faults of this run, in order. */
    List<FaultInjector.Fault> plan() {
      return !faults.isEmpty() ? faults : chaos ? FaultPlan.chaos(duration) : List.of();
    }
  }

  /** What a run found: the evidence, and the summary judged on it. */
  record Result(Evidence evidence, DemoSummary summary) {}

  private final StackConfig stackConfig;
  private final Options options;
  private final Console console;
  private final SplittableRandom random;
  private final AtomicBoolean closed = new AtomicBoolean();
  private DemoCluster cluster;
  private LoadDriver driver;
  private EvidenceReader evidence;
  private String backlog = "";

  DemoRun(StackConfig stackConfig, Options options, PrintWriter out) {
    this.stackConfig = stackConfig;
    this.options = options;
    this.console = new Console(out);
    this.random = new SplittableRandom(options.seed());
  }

  /** Runs the demo; empty when Ctrl-C ended it first. */
  Optional<Result> run() throws Exception {
    Thread hook =
        new Thread(
            () -> {
              console.interrupt();
              closeAll();
            },
            "ordinal-demo-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      return Optional.of(runChecked());
    } catch (Exception | Error e) {
      console.failed();
      if (console.interrupted()) {
        // Ctrl-C: the shutdown hook stops everything; what failed on the way is its doing
        console.out().println();
        console.out().println("Interrupted: stopping every process the demo started.");
        console.out().flush();
        return Optional.empty();
      }
      throw e;
    } finally {
      closeAll();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running already
      }
    }
  }

  private Result runChecked() throws Exception {
    cluster = new DemoCluster(stackConfig, options.chaos(), random.split(), console);
    cluster.start();
    driver = new LoadDriver(cluster.kafka(), cluster.orderApi(), random.split(), console);
    evidence =
        new EvidenceReader(
            cluster.orderDb(),
            cluster.billingDb(),
            cluster.integrator(),
            cluster.gateway(),
            driver.observer());

    PlacedOrder phantom = driver.placePhantom(cluster.orderDb());
    long driveStart = System.nanoTime();
    FaultPlan faults = drive();
    driver.stopMisbehaving();
    long driveSeconds = Math.round((System.nanoTime() - driveStart) / 1e9);

    cluster.checkAlive();
    console.out().printf("%nWaiting until every order is relayed, invoiced, issued and charged%n");
    boolean settled =
        console.waitFor(options.settleTimeout(), this::settled, () -> progressLine() + backlog);
    return report(phantom, settled, driveSeconds, faults.outcomes());
  }

  private FaultPlan drive() throws Exception {
    FaultPlan faults = new FaultPlan(options.plan(), options.duration(), console);
    console
        .out()
        .printf(
            "%nDriving for %s%s: interactive orders over HTTP%s (some retried with the same"
                + " Idempotency-Key), bulk batches, cancellations, records redelivered and"
                + " re-published under new ids%s%n",
            Console.human(options.duration()),
            options.maxOrders() > 0 ? " or " + options.maxOrders() + " orders" : "",
            options.rate() > 0 ? " at " + options.rate() + "/s" : "",
            faults.faults().isEmpty()
                ? ""
                : "; faults: "
                    + String.join(
                        ", ",
                        faults.faults().stream().map(FaultPlan::describe).distinct().toList()));
    console.out().flush();
    SplittableRandom faultRandom = random.split();
    faults.start(cluster.faultInjector(console::event), faultRandom);
    driver.drive(
        new LoadDriver.Mix(
            options.duration(), options.maxOrders(), options.rate(), options.chaos()),
        faults::running,
        () -> console.progress(this::progressLine, false));
    faults.join(Duration.ofSeconds(60));
    console.progress(this::progressLine, true);
    console.checkInterrupted();
    return faults;
  }

  private String progressLine() {
    List<UUID> ids = List.copyOf(driver.placed().keySet());
    long consumerLag = cluster.consumerLag();
    return String.format(
        "placed %d, relayed %d, invoiced %d, duplicates skipped %d, consumer lag %s, slot lag %s",
        ids.size(),
        driver.observer().relayedIds(),
        evidence.issued(ids),
        cluster.duplicatesSkipped(),
        consumerLag < 0 ? "?" : consumerLag,
        cluster.slotLag());
  }

  private boolean settled() {
    EvidenceReader.Backlog b =
        evidence.backlog(
            driver.messageIds(),
            driver.cancelled(),
            driver.cancelledBeforePlaced(),
            cluster.consumerLag());
    backlog = b.toString();
    return b.settled();
  }

  private Result report(
      PlacedOrder phantom, boolean settled, long driveSeconds, List<FaultInjector.Outcome> faults) {
    Evidence e = evidence.read(driver.driven(phantom), cluster.duplicatesSkipped());
    DemoSummary.Lanes[] lanes = evidence.latencies(driver.committed());
    DemoSummary summary =
        DemoSummary.of(
            e,
            InvariantChecks.check(e),
            driver.run(options.rate(), driveSeconds, options.chaos(), faults),
            lanes[0],
            lanes[1],
            settled ? null : "within " + Console.human(options.settleTimeout()) + ":" + backlog,
            cluster.logs().toString());
    console.out().println();
    console.out().print(summary.text());
    if (options.json()) {
      console.out().println(summary.json());
    }
    console.out().flush();
    return new Result(e, summary);
  }

  /** The children first, all at once; then the observer, the pools, the simulators, the stack. */
  private void closeAll() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (cluster != null) {
      cluster.stopChildren();
    }
    try {
      if (driver != null) {
        driver.close();
      }
    } catch (Exception e) {
      console.out().println("warning: stopping the topic observer failed: " + e.getMessage());
    }
    if (cluster != null) {
      cluster.close();
    }
  }
}
