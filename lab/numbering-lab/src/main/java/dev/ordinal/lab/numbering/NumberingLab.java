package dev.ordinal.lab.numbering;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.PAYMENT;

import dev.ordinal.billing.HttpEInvoiceIntegrator;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import org.jooq.DSLContext;

/**
 * The failure table, reproduced: four ways of numbering legal invoices run on the same workload
 * (same orders, same cancellations, same fault rates, {@link LabConfig#workers()} workers), each in
 * a series of its own, against the real PostgreSQL and the integrator simulator over HTTP; then a
 * consumer race (one order's message applied by several threads at once), naive and the project's
 * way.
 *
 * <p>What the caller provides: a billing schema of its own, freshly migrated ({@code
 * BillingService.migrate}), with room in the pool for {@code workers + 2} connections (the
 * just-in-time strategy runs the real {@code InvoiceIssuer}, which works every due invoice and
 * charge of the schema, so the lab refuses a schema that has any); and Ordinal's two simulators, by
 * base URI (the lab sets their faults through {@code PUT /admin/faults} and reads their counts from
 * {@code GET /admin/stats}). It also creates and drops tables of its own ({@code lab_*}) in that
 * schema.
 */
public final class NumberingLab {
  private static final Duration INTEGRATOR_TIMEOUT = Duration.ofSeconds(5);

  private final DSLContext dsl;
  private final URI integrator;
  private final URI gateway;
  private final Clock clock;
  private final SimulatorAdmin admin;

  /**
   * @param dsl the lab's own billing schema
   * @param integrator base URI of the e-invoice integrator simulator
   * @param gateway base URI of the payment gateway simulator
   */
  public NumberingLab(DSLContext dsl, URI integrator, URI gateway, Clock clock) {
    this.dsl = dsl;
    this.integrator = integrator;
    this.gateway = gateway;
    this.clock = clock;
    this.admin = new SimulatorAdmin(integrator, gateway);
  }

  /**
   * Runs the consumer race, then the four strategies one after the other; takes a few seconds per
   * strategy with the defaults.
   *
   * @throws LabException when the schema is not freshly migrated, a simulator does not answer, or a
   *     strategy does not finish within two minutes
   */
  public LabResult run(LabConfig config) {
    int invoices = dsl.fetchCount(INVOICE);
    int payments = dsl.fetchCount(PAYMENT);
    if (invoices > 0 || payments > 0) {
      throw new LabException(
          "The numbering lab needs a freshly migrated billing schema of its own, and this one holds"
              + " "
              + invoices
              + " invoices and "
              + payments
              + " payments: give it another schema",
          null);
    }
    String run = Long.toString(ThreadLocalRandom.current().nextLong(36L * 36 * 36 * 36), 36);
    admin.integratorFaults(config);
    admin.gatewayWithoutFaults();

    // the race first: its charges must not meet the just-in-time strategy's pending payments
    DoubleDeliveryRace race =
        new DoubleDeliveryRace(dsl, gateway, admin, clock, config, series("RACE", run));
    List<LabResult.ConsumerRow> consumers = List.of(race.naive(), race.inbox());

    Workload workload = Workload.of(config);
    MaxPlusOneStrategy maxPlusOne = new MaxPlusOneStrategy(dsl, series("MAX1", run));
    EnqueueTimeStrategy enqueueTime = new EnqueueTimeStrategy(dsl, series("ENQ", run));
    CallInTransactionStrategy inTransaction = new CallInTransactionStrategy(dsl, series("TX", run));
    List.of(maxPlusOne, enqueueTime, inTransaction).forEach(LabTableStrategy::setUp);
    List<NumberingStrategy> strategies =
        List.of(
            maxPlusOne,
            enqueueTime,
            inTransaction,
            new JustInTimeStrategy(dsl, series("JIT", run), clock));
    List<LabResult.StrategyRow> rows = new ArrayList<>();
    for (NumberingStrategy s : strategies) {
      rows.add(measure(s, workload, config));
    }
    return new LabResult(config, rows, consumers);
  }

  private LabResult.StrategyRow measure(
      NumberingStrategy strategy, Workload workload, LabConfig config) {
    strategy.enqueue(workload);
    CountingIntegrator counting =
        new CountingIntegrator(new HttpEInvoiceIntegrator(integrator, INTEGRATOR_TIMEOUT));
    SimulatorAdmin.IntegratorStats before = admin.integratorStats();
    long t0 = System.nanoTime();
    strategy.send(counting, config.workers());
    Duration wall = Duration.ofNanos(System.nanoTime() - t0);
    SimulatorAdmin.IntegratorStats seen = admin.integratorStats().minus(before);
    NumberingStrategy.SeriesFigures f = strategy.audit();
    return new LabResult.StrategyRow(
        strategy.kind(),
        strategy.series(),
        workload.orders().size(),
        f.issued(),
        f.rejected(),
        f.cancelled(),
        f.unfinished(),
        seen.calls(),
        seen.duplicateAttempts(),
        f.gaps(),
        f.duplicateNumbers(),
        f.highest(),
        counting.maxInFlight(),
        (double) counting.busyNanos() / wall.toNanos(),
        wall,
        f.note());
  }

  /** A series name of this run: the integrator keeps every run's numbers apart. */
  private static String series(String strategy, String run) {
    return (strategy + "-" + run).toUpperCase(Locale.ROOT);
  }
}
