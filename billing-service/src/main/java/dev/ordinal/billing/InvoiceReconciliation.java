package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.INVOICE_DISCREPANCY;

import dev.ordinal.billing.db.tables.records.InvoiceRecord;
import dev.ordinal.runtime.LoopContext;
import dev.ordinal.runtime.LoopOwner;
import dev.ordinal.runtime.Supervisor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the integrator about every number that is {@code VOIDED} or in {@code ERROR} here and
 * records each one it holds as a discrepancy ({@code invoice_discrepancy}): an invoice the tax
 * authority has although billing says it was not issued. The issuer records the same when an accept
 * arrives for an invoice that is no longer {@code SENDING}.
 *
 * <p>{@link #run(boolean)} with {@code all} asks about every such number (the {@code ordinal
 * invoices reconcile} command); the periodic job ({@link #start}) asks about every number in ERROR
 * and about each VOIDED number until a look-up that began after its in-flight window found nothing
 * ({@code reconciled_at}). Read-only towards the integrator; locally it writes only discrepancies
 * and {@code reconciled_at}.
 */
public final class InvoiceReconciliation implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(InvoiceReconciliation.class);

  /** One number the integrator holds although it is VOIDED or in ERROR here. */
  public record Discrepancy(
      long invoiceRowId,
      String series,
      long number,
      String localStatus,
      UUID heldAs,
      OffsetDateTime foundAt) {}

  /**
   * What one run found.
   *
   * @param checked numbers asked about
   * @param absent of those, not held by the integrator
   * @param unanswered look-ups that failed (the integrator unreachable); asked again next run
   * @param discrepancies every discrepancy recorded so far, this run's and earlier ones
   */
  public record Report(int checked, int absent, int unanswered, List<Discrepancy> discrepancies) {
    public boolean clean() {
      return discrepancies.isEmpty();
    }
  }

  private final DSLContext dsl;
  private final EInvoiceIntegrator integrator;
  private final Duration window;
  private final Counter checks;
  private final AtomicLong known = new AtomicLong();
  private final LoopOwner loop = new LoopOwner();

  /**
   * @param window the issuer's in-flight window ({@link InvoiceIssuerConfig#inFlightWindow()}): a
   *     VOIDED number is confirmed absent only by a look-up that began after its latest submission
   *     plus this
   */
  public InvoiceReconciliation(
      DSLContext dsl, EInvoiceIntegrator integrator, Duration window, MeterRegistry registry) {
    this.dsl = dsl;
    this.integrator = integrator;
    this.window = window;
    this.checks =
        Counter.builder("ordinal.billing.reconcile.checks")
            .description("Numbers the reconciliation asked the integrator about")
            .register(registry);
    Gauge.builder("ordinal.billing.reconcile.discrepancies", known, AtomicLong::get)
        .description("Numbers the integrator holds although they are VOIDED or ERROR here")
        .register(registry);
  }

  /** Records that the integrator holds invoice {@code invoiceRowId} as {@code heldAs}; once. */
  static void record(DSLContext dsl, long invoiceRowId, UUID heldAs) {
    dsl.insertInto(
            INVOICE_DISCREPANCY,
            INVOICE_DISCREPANCY.INVOICE_ID,
            INVOICE_DISCREPANCY.SERIES,
            INVOICE_DISCREPANCY.NUMBER,
            INVOICE_DISCREPANCY.LOCAL_STATUS,
            INVOICE_DISCREPANCY.HELD_AS)
        .select(
            DSL.select(INVOICE.ID, INVOICE.SERIES, INVOICE.NUMBER, INVOICE.STATUS, DSL.val(heldAs))
                .from(INVOICE)
                .where(INVOICE.ID.eq(invoiceRowId))
                .and(INVOICE.NUMBER.isNotNull()))
        .onConflictDoNothing()
        .execute();
  }

  /**
   * Asks the integrator about VOIDED and ERROR numbers: with {@code all} every one, otherwise those
   * not yet confirmed absent. Each held one is recorded and logged.
   */
  public Report run(boolean all) {
    OffsetDateTime startedAt = dsl.select(DbClock.now()).fetchOne(0, OffsetDateTime.class);
    List<InvoiceRecord> candidates =
        dsl.selectFrom(INVOICE)
            .where(INVOICE.STATUS.in(InvoiceStatus.VOIDED.name(), InvoiceStatus.ERROR.name()))
            .and(INVOICE.NUMBER.isNotNull())
            .and(
                all
                    ? DSL.noCondition()
                    : INVOICE
                        .STATUS
                        .eq(InvoiceStatus.ERROR.name())
                        .or(INVOICE.RECONCILED_AT.isNull()))
            .andNotExists(
                DSL.selectOne()
                    .from(INVOICE_DISCREPANCY)
                    .where(INVOICE_DISCREPANCY.INVOICE_ID.eq(INVOICE.ID)))
            .orderBy(INVOICE.SERIES, INVOICE.NUMBER)
            .fetch();
    int absent = 0;
    int unanswered = 0;
    for (InvoiceRecord inv : candidates) {
      Optional<EInvoiceIntegrator.RemoteInvoice> remote;
      try {
        remote = integrator.lookup(inv.getSeries(), inv.getNumber());
      } catch (IntegratorException e) {
        unanswered++;
        continue;
      } finally {
        checks.increment();
      }
      if (remote.isPresent()) {
        record(dsl, inv.getId(), remote.get().invoiceId());
        log.error(
            "The integrator holds {}/{} (as invoice {}) although it is {} here: an operator must"
                + " settle it",
            inv.getSeries(),
            inv.getNumber(),
            remote.get().invoiceId(),
            inv.getStatus());
        continue;
      }
      absent++;
      if (inv.getSentAt() == null || !inv.getSentAt().plus(window).isAfter(startedAt)) {
        dsl.update(INVOICE)
            .set(INVOICE.RECONCILED_AT, DbClock.now())
            .where(INVOICE.ID.eq(inv.getId()))
            .and(INVOICE.STATUS.eq(InvoiceStatus.VOIDED.name()))
            .execute();
      }
    }
    List<Discrepancy> found = discrepancies();
    known.set(found.size());
    return new Report(candidates.size(), absent, unanswered, found);
  }

  /** Every discrepancy recorded, by series and number. */
  public List<Discrepancy> discrepancies() {
    return dsl.selectFrom(INVOICE_DISCREPANCY)
        .orderBy(INVOICE_DISCREPANCY.SERIES, INVOICE_DISCREPANCY.NUMBER)
        .fetch(
            r ->
                new Discrepancy(
                    r.getInvoiceId(),
                    r.getSeries(),
                    r.getNumber(),
                    r.getLocalStatus(),
                    r.getHeldAs(),
                    r.getFoundAt()));
  }

  /**
   * Runs {@link #run(boolean) run(false)} every {@code interval} as loop {@code loopName} of {@code
   * supervisor}; a failed run (the database down) fails the loop, which runs again after a backoff.
   */
  public InvoiceReconciliation start(Duration interval, Supervisor supervisor, String loopName) {
    loop.start(supervisor, loopName, ctx -> periodically(ctx, interval));
    return this;
  }

  private void periodically(LoopContext ctx, Duration interval) throws InterruptedException {
    while (ctx.running()) {
      Report r = run(false);
      ctx.healthy();
      if (!r.clean()) {
        log.warn(
            "{} number(s) held by the integrator although VOIDED or ERROR here; see 'ordinal"
                + " invoices reconcile'",
            r.discrepancies().size());
      }
      ctx.await(interval);
    }
  }

  @Override
  public void close() {
    loop.close();
  }
}
