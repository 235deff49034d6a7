package dev.ordinal.billing;

import static dev.ordinal.billing.PaymentStatus.CANCELLED;
import static dev.ordinal.billing.PaymentStatus.FAILED;
import static dev.ordinal.billing.db.Tables.PAYMENT;
import static dev.ordinal.billing.db.Tables.PAYMENT_DISCREPANCY;

import dev.ordinal.billing.db.tables.records.PaymentRecord;
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
 * Asks the gateway, by each order's idempotency key, about every payment settled here as not
 * charged ({@code CANCELLED}) or given up on ({@code FAILED}), and records each one it holds a
 * charge for as a discrepancy ({@code payment_discrepancy}): money taken although billing says it
 * was not (a gateway that captured after billing gave up on the request, a charge made before a
 * database restore). A cancelled order's late charge is also recorded as captured ({@code CANCELLED
 * → CAPTURED}, its refund requested), so the collector refunds it; a {@code FAILED} payment's is
 * for an operator.
 *
 * <p>{@link #run(boolean)} with {@code all} asks about every such payment (the {@code ordinal
 * invoices reconcile} command); the periodic job ({@link #start}) asks about each at growing
 * horizons after its latest charge request began, or after it was settled when none was sent
 * ({@link Horizons}: the collector's in-flight window, twice it, four times ... up to a cap). Never
 * charges or refunds itself.
 */
public final class PaymentReconciliation extends PeriodicReconciliation<PaymentReconciliation> {

  private static final Logger log = LoggerFactory.getLogger(PaymentReconciliation.class);

  /**
   * A charge the gateway holds for a payment that was CANCELLED (never charged) or FAILED here.
   *
   * @param localStatus the payment's status when the charge was found
   * @param statusNow its status now ({@code CAPTURED}, then {@code REFUNDED}, for a cancelled
   *     order)
   */
  public record Discrepancy(
      UUID orderId,
      String localStatus,
      String chargeId,
      OffsetDateTime foundAt,
      String statusNow) {}

  /**
   * What one run found.
   *
   * @param checked payments asked about
   * @param absent of those, with no charge at the gateway
   * @param unanswered look-ups that failed; asked again next run
   * @param discrepancies every discrepancy recorded so far, this run's and earlier ones
   */
  public record Report(int checked, int absent, int unanswered, List<Discrepancy> discrepancies) {
    public boolean clean() {
      return discrepancies.isEmpty();
    }
  }

  private final DSLContext dsl;
  private final PaymentGateway gateway;
  private final Horizons horizons;
  private final Counter checks;
  private final AtomicLong known = new AtomicLong();

  /**
   * @param window the collector's in-flight window ({@link PaymentCollector#inFlightWindow()}): a
   *     payment is first asked about this long after its latest charge request began, then at
   *     twice, four times ... this
   * @param cap the last horizon ({@link Horizons#DEFAULT_CAP} is a day)
   */
  public PaymentReconciliation(
      DSLContext dsl,
      PaymentGateway gateway,
      Duration window,
      Duration cap,
      MeterRegistry registry) {
    super(
        registry,
        "payment-reconciliation",
        "{} charge(s) held by the gateway for payments CANCELLED or FAILED here; see 'ordinal invoices reconcile'",
        log);
    this.dsl = dsl;
    this.gateway = gateway;
    this.horizons = new Horizons(window, cap);
    this.checks =
        Counter.builder("ordinal.billing.reconcile.payment_checks")
            .description("Payments the reconciliation asked the gateway about")
            .register(registry);
    Gauge.builder("ordinal.billing.reconcile.payment_discrepancies", known, AtomicLong::get)
        .description("Charges the gateway holds for payments CANCELLED or FAILED here")
        .register(registry);
  }

  /** With the default cap of the horizons, a day. */
  public PaymentReconciliation(
      DSLContext dsl, PaymentGateway gateway, Duration window, MeterRegistry registry) {
    this(dsl, gateway, window, Horizons.DEFAULT_CAP, registry);
  }

  /**
   * Asks the gateway about CANCELLED and FAILED payments: with {@code all} every one, otherwise
   * those whose next horizon has come. Each charge found is recorded and logged.
   */
  public Report run(boolean all) {
    OffsetDateTime startedAt = dsl.select(DbClock.now()).fetchOne(0, OffsetDateTime.class);
    List<PaymentRecord> candidates =
        dsl.selectFrom(PAYMENT)
            .where(PAYMENT.STATUS.in(CANCELLED.name(), FAILED.name()))
            .and(
                all
                    ? DSL.noCondition()
                    : PAYMENT
                        .RECONCILED_AT
                        .isNull()
                        .and(
                            PAYMENT
                                .NEXT_RECONCILE_AT
                                .isNull()
                                .or(PAYMENT.NEXT_RECONCILE_AT.le(startedAt))))
            .andNotExists(
                DSL.selectOne()
                    .from(PAYMENT_DISCREPANCY)
                    .where(PAYMENT_DISCREPANCY.ORDER_ID.eq(PAYMENT.ORDER_ID)))
            .orderBy(PAYMENT.UPDATED_AT, PAYMENT.ORDER_ID)
            .fetch();
    int absent = 0;
    int unanswered = 0;
    for (PaymentRecord p : candidates) {
      Optional<String> charge;
      try {
        charge = gateway.chargeFor(p.getOrderId());
      } catch (IntegratorException e) {
        log.warn(
            "Reconciliation: look-up of order {}'s charge failed: {}",
            p.getOrderId(),
            e.getMessage());
        unanswered++;
        continue;
      } finally {
        checks.increment();
        checked();
      }
      if (charge.isPresent()) {
        found(p, charge.get());
      } else {
        absent++;
        nextHorizon(p, startedAt);
      }
    }
    List<Discrepancy> found = discrepancies();
    known.set(found.size());
    return new Report(candidates.size(), absent, unanswered, found);
  }

  /** The gateway holds {@code chargeId} for payment {@code p}: recorded, logged, acted on. */
  private void found(PaymentRecord p, String chargeId) {
    int recorded =
        dsl.insertInto(PAYMENT_DISCREPANCY)
            .set(PAYMENT_DISCREPANCY.ORDER_ID, p.getOrderId())
            .set(PAYMENT_DISCREPANCY.LOCAL_STATUS, p.getStatus())
            .set(PAYMENT_DISCREPANCY.CHARGE_ID, chargeId)
            .onConflictDoNothing()
            .execute();
    // a cancelled order's charge is recorded as captured, so the collector refunds it
    boolean toRefund =
        CANCELLED.name().equals(p.getStatus())
            && PaymentLifecycle.capture(dsl, p.getOrderId(), chargeId);
    if (recorded == 1) {
      log.error(
          "The gateway holds charge {} for order {} although its payment is {} here: {}",
          chargeId,
          p.getOrderId(),
          p.getStatus(),
          toRefund
              ? "recorded as captured, to be refunded"
              : "an operator must settle it (see 'ordinal invoices reconcile')");
    }
  }

  /**
   * A payment with no charge at the gateway by a look-up begun at {@code lookedUpAt}: asked about
   * again at its next horizon after its latest charge request (or its settling, when none was
   * sent), or never again by the periodic job once the cap has passed.
   */
  private void nextHorizon(PaymentRecord p, OffsetDateTime lookedUpAt) {
    OffsetDateTime base = p.getChargeSentAt() != null ? p.getChargeSentAt() : p.getUpdatedAt();
    OffsetDateTime next = horizons.next(base, lookedUpAt);
    dsl.update(PAYMENT)
        .set(PAYMENT.RECONCILE_CHECKS, PAYMENT.RECONCILE_CHECKS.plus(1))
        .set(PAYMENT.NEXT_RECONCILE_AT, next)
        .set(
            PAYMENT.RECONCILED_AT, next == null ? DbClock.now() : DSL.inline((OffsetDateTime) null))
        .where(PAYMENT.ORDER_ID.eq(p.getOrderId()))
        .and(PAYMENT.STATUS.eq(p.getStatus()))
        .execute();
  }

  /** Every discrepancy recorded, in the order found, with the payment's status now. */
  public List<Discrepancy> discrepancies() {
    return dsl.select(
            PAYMENT_DISCREPANCY.ORDER_ID,
            PAYMENT_DISCREPANCY.LOCAL_STATUS,
            PAYMENT_DISCREPANCY.CHARGE_ID,
            PAYMENT_DISCREPANCY.FOUND_AT,
            PAYMENT.STATUS)
        .from(PAYMENT_DISCREPANCY)
        .leftJoin(PAYMENT)
        .on(PAYMENT.ORDER_ID.eq(PAYMENT_DISCREPANCY.ORDER_ID))
        .orderBy(PAYMENT_DISCREPANCY.FOUND_AT, PAYMENT_DISCREPANCY.ORDER_ID)
        .fetch(r -> new Discrepancy(r.value1(), r.value2(), r.value3(), r.value4(), r.value5()));
  }

  @Override
  int periodicRun() {
    return run(false).discrepancies().size();
  }
}
