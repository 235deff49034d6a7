package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.INVOICE_DISCREPANCY;
import static dev.ordinal.billing.db.Tables.INVOICE_SERIES;

import dev.ordinal.billing.db.tables.records.InvoiceRecord;
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
import org.jooq.Record2;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the integrator about every number it may hold that is not ISSUED here for the same invoice,
 * and records each one it holds as a discrepancy ({@code invoice_discrepancy}, keyed by the
 * number): an invoice the tax authority has although billing says it was not issued. Asked about:
 *
 * <ul>
 *   <li>every number that is {@code VOIDED} or in {@code ERROR} here;
 *   <li>the numbers past each series' counter, until {@link #SCAN_AHEAD} in a row are not held (a
 *       restored database hands out again numbers the integrator already holds, or never reaches
 *       them);
 *   <li>in a full run, every invoice that is not ISSUED, SENDING or numbered here, by its invoice
 *       id ({@link EInvoiceIntegrator#lookupByInvoice}): the numbers the integrator holds it under,
 *       whichever they are.
 * </ul>
 *
 * A number the integrator holds is in order only when this database numbers the same invoice with
 * it and the invoice is {@code SENDING} or {@code ISSUED}. The issuer records the same kind of
 * discrepancy when an accept arrives for an invoice that is no longer {@code SENDING}.
 *
 * <p>{@link #run(boolean)} with {@code all} asks about all of them (the {@code ordinal invoices
 * reconcile} command); the periodic job ({@link #start}) asks about every number in ERROR, the
 * numbers past the counters, and each VOIDED number at growing horizons after its latest submission
 * began ({@link Horizons}: the in-flight window, twice it, four times ... up to a cap; {@code
 * next_reconcile_at}, then {@code reconciled_at} once the cap has passed). Read-only towards the
 * integrator; locally it writes only discrepancies and those times.
 */
public final class InvoiceReconciliation extends PeriodicReconciliation<InvoiceReconciliation> {

  private static final Logger log = LoggerFactory.getLogger(InvoiceReconciliation.class);

  /** How many numbers in a row past a series' counter must be free at the integrator to stop. */
  public static final int SCAN_AHEAD = 100;

  /** The local status of a discrepancy whose number no invoice here holds. */
  public static final String NO_LOCAL_INVOICE = "NONE";

  /**
   * One number the integrator holds although it is not ISSUED here for that invoice.
   *
   * @param invoiceRowId the invoice here that holds the number, null when none does
   * @param localStatus its status when found, {@link #NO_LOCAL_INVOICE} when none holds it
   * @param heldAs the invoice id the integrator holds the number for
   */
  public record Discrepancy(
      Long invoiceRowId,
      String series,
      long number,
      String localStatus,
      UUID heldAs,
      OffsetDateTime foundAt) {}

  /**
   * What one run found.
   *
   * @param checked VOIDED and ERROR numbers asked about
   * @param absent of those, not held by the integrator
   * @param scanned numbers past the series' counters asked about
   * @param askedById invoices asked about by invoice id (full runs only)
   * @param unanswered look-ups that failed (the integrator unreachable); asked again next run
   * @param discrepancies every discrepancy recorded so far, this run's and earlier ones
   */
  public record Report(
      int checked,
      int absent,
      int scanned,
      int askedById,
      int unanswered,
      List<Discrepancy> discrepancies) {
    public boolean clean() {
      return discrepancies.isEmpty();
    }
  }

  private final DSLContext dsl;
  private final EInvoiceIntegrator integrator;
  private final Horizons horizons;
  private final Counter checks;
  private final AtomicLong known = new AtomicLong();

  /** With the default cap of the horizons ({@link Horizons#DEFAULT_CAP}, a day). */
  public InvoiceReconciliation(
      DSLContext dsl, EInvoiceIntegrator integrator, Duration window, MeterRegistry registry) {
    this(dsl, integrator, window, Horizons.DEFAULT_CAP, registry);
  }

  /**
   * @param window the issuer's in-flight window ({@link InvoiceIssuerConfig#inFlightWindow()}): a
   *     VOIDED number is first asked about again this long after its latest submission began, then
   *     at twice, four times ... this
   * @param cap the last horizon: a VOIDED number is not asked about by the periodic job once a
   *     look-up that began this long after its latest submission found nothing
   */
  public InvoiceReconciliation(
      DSLContext dsl,
      EInvoiceIntegrator integrator,
      Duration window,
      Duration cap,
      MeterRegistry registry) {
    super(
        registry,
        "invoice-reconciliation",
        "{} number(s) held by the integrator although not issued here; see 'ordinal invoices reconcile'",
        log);
    this.dsl = dsl;
    this.integrator = integrator;
    this.horizons = new Horizons(window, cap);
    this.checks =
        Counter.builder("ordinal.billing.reconcile.checks")
            .description("Numbers and invoices the reconciliation asked the integrator about")
            .register(registry);
    Gauge.builder("ordinal.billing.reconcile.discrepancies", known, AtomicLong::get)
        .description("Numbers the integrator holds although they are not ISSUED here")
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
   * Asks the integrator about what it may hold (see the class): with {@code all} every VOIDED and
   * ERROR number and every invoice not numbered or not issued here by its id, otherwise the ERROR
   * numbers and the VOIDED ones whose next horizon has come; in both, the numbers past each series'
   * counter. Each number held that is not ISSUED here for that invoice is recorded and logged.
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
                        .or(
                            INVOICE
                                .RECONCILED_AT
                                .isNull()
                                .and(
                                    INVOICE
                                        .NEXT_RECONCILE_AT
                                        .isNull()
                                        .or(INVOICE.NEXT_RECONCILE_AT.le(startedAt)))))
            .andNotExists(
                DSL.selectOne()
                    .from(INVOICE_DISCREPANCY)
                    .where(INVOICE_DISCREPANCY.SERIES.eq(INVOICE.SERIES))
                    .and(INVOICE_DISCREPANCY.NUMBER.eq(INVOICE.NUMBER)))
            .orderBy(INVOICE.SERIES, INVOICE.NUMBER)
            .fetch();
    Tally tally = new Tally();
    for (InvoiceRecord inv : candidates) {
      Optional<EInvoiceIntegrator.RemoteInvoice> remote = lookup(inv.getSeries(), inv.getNumber());
      if (remote == null) {
        tally.unanswered++;
      } else if (remote.isPresent()) {
        held(remote.get());
      } else {
        tally.absent++;
        if (InvoiceStatus.VOIDED.name().equals(inv.getStatus())) {
          nextHorizon(inv, startedAt);
        }
      }
    }
    scanPastCounters(tally);
    if (all) {
      askById(tally);
    }
    List<Discrepancy> found = discrepancies();
    known.set(found.size());
    return new Report(
        candidates.size(), tally.absent, tally.scanned, tally.byId, tally.unanswered, found);
  }

  /** Counts of one run. */
  private static final class Tally {
    int absent;
    int scanned;
    int byId;
    int unanswered;
  }

  /** What the integrator holds under a number; null when the look-up failed. */
  private Optional<EInvoiceIntegrator.RemoteInvoice> lookup(String series, long number) {
    try {
      return integrator.lookup(series, number);
    } catch (IntegratorException e) {
      log.warn("Reconciliation: look-up of {}/{} failed: {}", series, number, e.getMessage());
      return null;
    } finally {
      checks.increment();
      checked();
    }
  }

  /**
   * A VOIDED number not held by a look-up begun at {@code lookedUpAt}: asked about again at its
   * next horizon, or never again by the periodic job once the cap has passed.
   */
  private void nextHorizon(InvoiceRecord inv, OffsetDateTime lookedUpAt) {
    OffsetDateTime base = inv.getSentAt() != null ? inv.getSentAt() : inv.getReservedAt();
    OffsetDateTime next = base == null ? null : horizons.next(base, lookedUpAt);
    dsl.update(INVOICE)
        .set(INVOICE.RECONCILE_CHECKS, INVOICE.RECONCILE_CHECKS.plus(1))
        .set(INVOICE.NEXT_RECONCILE_AT, next)
        .set(
            INVOICE.RECONCILED_AT, next == null ? DbClock.now() : DSL.inline((OffsetDateTime) null))
        .where(INVOICE.ID.eq(inv.getId()))
        .and(INVOICE.STATUS.eq(InvoiceStatus.VOIDED.name()))
        .execute();
  }

  /**
   * Asks about the numbers past each series' counter (as read when the scan starts) until {@link
   * #SCAN_AHEAD} in a row are in order: free there, or reserved here meanwhile for the invoice the
   * integrator holds. So the scan stops {@link #SCAN_AHEAD} numbers after the last one out of
   * order, however fast the issuer numbers behind it.
   */
  private void scanPastCounters(Tally tally) {
    for (Record2<String, Long> s :
        dsl.select(INVOICE_SERIES.SERIES, INVOICE_SERIES.NEXT_NO)
            .from(INVOICE_SERIES)
            .orderBy(INVOICE_SERIES.SERIES)
            .fetch()) {
      int free = 0;
      for (long n = s.value2(); free < SCAN_AHEAD; n++) {
        tally.scanned++;
        Optional<EInvoiceIntegrator.RemoteInvoice> remote = lookup(s.value1(), n);
        if (remote == null) {
          tally.unanswered++;
          break; // asked again next run
        }
        if (remote.isEmpty() || !held(remote.get())) {
          free++;
        } else {
          free = 0;
        }
      }
    }
  }

  /** Asks by invoice id about every invoice that is not SENDING or ISSUED here. */
  private void askById(Tally tally) {
    List<UUID> orders =
        dsl.select(INVOICE.ORDER_ID)
            .from(INVOICE)
            .where(INVOICE.STATUS.notIn(InvoiceStatus.SENDING.name(), InvoiceStatus.ISSUED.name()))
            .orderBy(INVOICE.ID)
            .fetch(INVOICE.ORDER_ID);
    for (UUID order : orders) {
      UUID invoiceId = InvoiceNumbering.uuid(order);
      tally.byId++;
      List<EInvoiceIntegrator.RemoteInvoice> remote;
      try {
        remote = integrator.lookupByInvoice(invoiceId);
      } catch (IntegratorException e) {
        log.warn("Reconciliation: look-up of invoice {} failed: {}", invoiceId, e.getMessage());
        tally.unanswered++;
        continue;
      } finally {
        checks.increment();
        checked();
      }
      remote.forEach(this::held);
    }
  }

  /**
   * The integrator holds {@code remote}: recorded (and logged, the first time) unless an invoice
   * here holds that number for the same invoice and is SENDING or ISSUED. True when it is a
   * discrepancy.
   */
  private boolean held(EInvoiceIntegrator.RemoteInvoice remote) {
    InvoiceRecord local =
        dsl.selectFrom(INVOICE)
            .where(INVOICE.SERIES.eq(remote.series()))
            .and(INVOICE.NUMBER.eq(remote.number()))
            .fetchOne();
    if (local != null
        && InvoiceNumbering.uuid(local).equals(remote.invoiceId())
        && isSendingOrIssued(local)) {
      return false;
    }
    int recorded =
        dsl.insertInto(INVOICE_DISCREPANCY)
            .set(INVOICE_DISCREPANCY.INVOICE_ID, local == null ? null : local.getId())
            .set(INVOICE_DISCREPANCY.SERIES, remote.series())
            .set(INVOICE_DISCREPANCY.NUMBER, remote.number())
            .set(
                INVOICE_DISCREPANCY.LOCAL_STATUS,
                local == null ? NO_LOCAL_INVOICE : local.getStatus())
            .set(INVOICE_DISCREPANCY.HELD_AS, remote.invoiceId())
            .onConflictDoNothing()
            .execute();
    if (recorded == 1) {
      log.error(
          "The integrator holds {}/{} (as invoice {}) although {} here: an operator must settle it",
          remote.series(),
          remote.number(),
          remote.invoiceId(),
          local == null
              ? "no invoice holds that number"
              : "it is " + local.getStatus() + " for invoice " + InvoiceNumbering.uuid(local));
    }
    return true;
  }

  private static boolean isSendingOrIssued(InvoiceRecord inv) {
    return InvoiceStatus.SENDING.name().equals(inv.getStatus())
        || InvoiceStatus.ISSUED.name().equals(inv.getStatus());
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

  @Override
  int periodicRun() {
    return run(false).discrepancies().size();
  }
}
