package dev.ordinal.lab.bench;

import static dev.ordinal.billing.db.Tables.INVOICE;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.billing.EInvoiceIntegrator;
import dev.ordinal.billing.HttpEInvoiceIntegrator;
import dev.ordinal.billing.IntegratorException;
import dev.ordinal.billing.InvoiceIssuer;
import dev.ordinal.billing.InvoiceIssuerConfig;
import dev.ordinal.lab.bench.BillingBench.Settings;
import dev.ordinal.lab.sim.IntegratorFaults;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.messaging.db.DatabaseSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * Billing's issuer part: invoices per second through the {@link InvoiceIssuer} with a fixed-latency
 * integrator (the HTTP simulator, no faults) at each in-flight level, next to in-flight / latency.
 */
final class BillingIssuerBench {
  private BillingIssuerBench() {}

  static List<NumberingBench.Row> rows(
      DatabaseSettings db, Settings s, String schema, Consumer<String> progress) throws Exception {
    List<NumberingBench.Row> rows = new ArrayList<>();
    int maxInFlight = s.inFlight().stream().mapToInt(Integer::intValue).max().orElse(1);
    try (HikariDataSource pool = BillingBench.fresh(db, schema, 3 * maxInFlight + 4);
        IntegratorSimulator sim =
            new IntegratorSimulator(
                    0,
                    IntegratorFaults.defaults()
                        .withoutFaults()
                        .withLatency(s.latency(), s.latency()))
                .start()) {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      HttpEInvoiceIntegrator http =
          new HttpEInvoiceIntegrator(sim.baseUri(), Duration.ofSeconds(10));
      for (int inFlight : s.inFlight()) {
        rows.add(level(dsl, http, s, inFlight, progress));
      }
    }
    return rows;
  }

  /**
   * One in-flight level: a backlog of drafts for the whole run, the issuer started on it, the
   * invoices issued in the measured window; what the backlog had left is cancelled.
   */
  private static NumberingBench.Row level(
      DSLContext dsl, EInvoiceIntegrator http, Settings s, int inFlight, Consumer<String> progress)
      throws Exception {
    double ideal = inFlight * 1000.0 / s.latency().toMillis();
    // a backlog for the whole run at 1.25x the ideal rate: the issuer never runs dry
    int count =
        (int)
                Math.ceil(
                    ideal
                        * (s.issuerWarmup().toMillis() + s.issuerMeasure().toMillis())
                        / 1000.0
                        * 1.25)
            + 4 * inFlight;
    NumberingBench.drafts(dsl, "SEND-" + inFlight, count, 4);
    Recorder calls = new Recorder(3);
    InvoiceIssuer issuer =
        new InvoiceIssuer(
            InvoiceIssuerConfig.defaults().withWorkers(inFlight),
            dsl,
            timed(http, calls),
            new SimpleMeterRegistry(),
            Clock.systemUTC());
    long before;
    long after;
    Histogram latency;
    try {
      issuer.start();
      TimeUnit.MILLISECONDS.sleep(s.issuerWarmup().toMillis());
      before = issuer.issued();
      calls.getIntervalHistogram(); // the warm-up's calls are not reported
      TimeUnit.MILLISECONDS.sleep(s.issuerMeasure().toMillis());
      after = issuer.issued();
      latency = calls.getIntervalHistogram();
    } finally {
      issuer.close();
    }
    // what the backlog had left: out of the next measurement's queue, accounted for
    dsl.update(INVOICE)
        .set(INVOICE.STATUS, "CANCELLED")
        .where(INVOICE.STATUS.eq("DRAFT"))
        .execute();
    double rate = (after - before) / (s.issuerMeasure().toMillis() / 1000.0);
    progress.accept(
        String.format(
            "%d in flight: %,.1f invoices/s, ideal %,.1f (%.2f); integrator call p50 %.0f ms,"
                + " p99 %.0f ms",
            inFlight,
            rate,
            ideal,
            rate / ideal,
            latency.getValueAtPercentile(50) / 1e6,
            latency.getValueAtPercentile(99) / 1e6));
    return row(s, inFlight, rate, ideal, latency);
  }

  /**
   * The level's row: invoices/s next to in-flight / latency, with the integrator call's p50, p99.
   */
  private static NumberingBench.Row row(
      Settings s, int inFlight, double rate, double ideal, Histogram latency) {
    return new NumberingBench.Row(
        String.format(
            "invoices through a %d ms integrator, %d in flight (call p50 %.0f ms, p99 %.0f"
                + " ms; limit = in-flight / latency)",
            s.latency().toMillis(),
            inFlight,
            latency.getValueAtPercentile(50) / 1e6,
            latency.getValueAtPercentile(99) / 1e6),
        rate,
        "invoices/s",
        ideal,
        ">= 0.9");
  }

  /** The integrator, with each submission's latency recorded (nanoseconds). */
  private static EInvoiceIntegrator timed(EInvoiceIntegrator inner, Recorder calls) {
    return new EInvoiceIntegrator() {
      @Override
      public void submit(Submission submission) throws IntegratorException {
        long t0 = System.nanoTime();
        try {
          inner.submit(submission);
        } finally {
          calls.recordValue(System.nanoTime() - t0);
        }
      }

      @Override
      public Optional<RemoteInvoice> lookup(String series, long number) throws IntegratorException {
        return inner.lookup(series, number);
      }
    };
  }
}
