package dev.ordinal.lab.numbering;

import static dev.ordinal.billing.db.Tables.INVOICE;

import dev.ordinal.billing.EInvoiceIntegrator;
import dev.ordinal.billing.GapAudit;
import dev.ordinal.billing.InvoiceHandler;
import dev.ordinal.billing.InvoiceIssuer;
import dev.ordinal.billing.InvoiceIssuerConfig;
import dev.ordinal.billing.InvoiceStatus;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;

/**
 * The project's way, with the project's classes: {@link InvoiceHandler} makes drafts (no number)
 * and cancels them ({@code CANCELLED}, no number), {@link InvoiceIssuer} reserves each number in a
 * short transaction of its own right before the call ({@code InvoiceNumbering}) and sends with
 * {@code workers} calls in flight; a rejected invoice keeps its number in {@code ERROR} for an
 * operator to resend or void with a reason. Audited by {@link GapAudit}.
 */
final class JustInTimeStrategy implements NumberingStrategy {
  private static final Duration POLL = Duration.ofMillis(10);

  private final DSLContext dsl;
  private final String series;
  private final Clock clock;
  private final LabOrders orders;

  JustInTimeStrategy(DSLContext dsl, String series, Clock clock) {
    this.dsl = dsl;
    this.series = series;
    this.clock = clock;
    this.orders = new LabOrders(new InvoiceHandler(clock));
  }

  @Override
  public LabResult.Strategy kind() {
    return LabResult.Strategy.JUST_IN_TIME;
  }

  @Override
  public String series() {
    return series;
  }

  @Override
  public void enqueue(Workload workload) {
    for (Workload.Order o : workload.orders()) {
      dsl.transaction(c -> orders.placed(c.dsl(), o.orderId(), o.total(), series));
    }
    for (Workload.Order o : workload.orders()) {
      if (o.cancelled()) {
        dsl.transaction(c -> orders.cancelled(c.dsl(), o.orderId()));
      }
    }
  }

  @Override
  public void send(EInvoiceIntegrator integrator, int workers) {
    InvoiceIssuerConfig config =
        InvoiceIssuerConfig.builder()
            .workers(workers)
            .pollInterval(Duration.ofMillis(5))
            .backoff(Duration.ofMillis(5), Duration.ofMillis(50))
            .build();
    try (InvoiceIssuer issuer =
        new InvoiceIssuer(config, dsl, integrator, new SimpleMeterRegistry(), clock).start()) {
      long deadline = System.nanoTime() + LabTableStrategy.SEND_DEADLINE.toNanos();
      while (open() > 0) {
        if (System.nanoTime() > deadline) {
          throw new LabException(
              kind().label()
                  + " did not finish in "
                  + LabTableStrategy.SEND_DEADLINE
                  + "; "
                  + open()
                  + " invoices left",
              null);
        }
        TimeUnit.MILLISECONDS.sleep(POLL.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LabException(kind().label() + " was interrupted", e);
    }
  }

  private int open() {
    return dsl.fetchCount(
        INVOICE,
        INVOICE
            .SERIES
            .eq(series)
            .and(INVOICE.STATUS.in(InvoiceStatus.DRAFT.name(), InvoiceStatus.SENDING.name())));
  }

  @Override
  public SeriesFigures audit() {
    GapAudit.SeriesReport r = new GapAudit(dsl).run(series).get(0);
    Map<InvoiceStatus, Integer> s = r.byStatus();
    int errors = s.getOrDefault(InvoiceStatus.ERROR, 0);
    return new SeriesFigures(
        s.getOrDefault(InvoiceStatus.ISSUED, 0),
        errors,
        s.getOrDefault(InvoiceStatus.CANCELLED, 0),
        s.getOrDefault(InvoiceStatus.DRAFT, 0) + s.getOrDefault(InvoiceStatus.SENDING, 0),
        r.highest(),
        r.missingNumbers(),
        r.duplicates().size(),
        "cancelled drafts took no number; "
            + errors
            + " rejected invoices keep theirs in ERROR (resend or void with a reason)");
  }
}
