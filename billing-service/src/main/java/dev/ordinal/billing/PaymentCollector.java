package dev.ordinal.billing;

import static dev.ordinal.billing.PaymentStatus.CAPTURED;
import static dev.ordinal.billing.PaymentStatus.PENDING;
import static dev.ordinal.billing.db.Tables.PAYMENT;

import dev.ordinal.billing.db.tables.records.PaymentRecord;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.runtime.Backoff;
import dev.ordinal.runtime.LoopContext;
import dev.ordinal.runtime.LoopOwner;
import dev.ordinal.runtime.Supervisor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.jooq.DSLContext;
import org.jooq.Result;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Charges pending payments, one charge per order: the gateway call carries the order id as
 * idempotency key, and every local transition is a guarded update of {@link PaymentLifecycle}
 * ({@code WHERE status = <from>}, the states and transitions of {@link PaymentStatus}), so retries,
 * duplicates and crashes never charge twice or move a payment backwards. Leases and due times are
 * the database's clock. A cancelled order whose charge may have been sent is settled by asking the
 * gateway by idempotency key, never by charging; declines and other permanent answers end as {@code
 * FAILED} after {@link #MAX_PERMANENT}, refused refunds as {@code REFUND_FAILED}; transient answers
 * back off exponentially with jitter.
 */
public final class PaymentCollector implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PaymentCollector.class);
  static final Duration LEASE = Duration.ofSeconds(30);

  /** Permanent answers (declines, refused refunds) before a payment is given up on. */
  public static final int MAX_PERMANENT = 3;

  private static final Backoff BACKOFF =
      Backoff.exponential(Duration.ofSeconds(1), Duration.ofMinutes(5));

  private final DSLContext dsl;
  private final PaymentGateway gateway;
  private final int workers;
  private final Duration lease;
  private final Counter captured;
  private final Counter failed;
  private final Counter refunded;
  private final Counter cancelledCharges;
  private final Counter deferred;
  private final Counter refundFailed;
  private final Counter fenced;

  public PaymentCollector(
      DSLContext dsl, PaymentGateway gateway, int workers, MeterRegistry registry) {
    this(dsl, gateway, workers, registry, LEASE);
  }

  /**
   * @param lease how long a claimed payment is left alone: a collector that dies mid-charge leaves
   *     it to be tried again (same idempotency key, so never charged twice) after this; longer than
   *     the gateway's {@link PaymentGateway#callTimeout()}, since a charge or a refund is sent only
   *     while the claim's lease still covers that timeout
   * @throws ConfigurationException when {@code lease} is not longer than the gateway's timeout
   */
  public PaymentCollector(
      DSLContext dsl, PaymentGateway gateway, int workers, MeterRegistry registry, Duration lease) {
    if (lease == null || lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("lease must be positive, not " + lease);
    }
    if (lease.compareTo(gateway.callTimeout()) <= 0) {
      // a charge is sent only while the lease still covers the call's timeout: never, here
      throw new ConfigurationException(
          BillingSettings.PAYMENT_LEASE.option()
              + " must be longer than the payment gateway's timeout ("
              + gateway.callTimeout()
              + "), not "
              + lease);
    }
    this.lease = lease;
    this.registry = registry;
    this.dsl = dsl;
    this.gateway = gateway;
    this.workers = workers;
    this.captured =
        Counter.builder("ordinal.billing.payments").tag("outcome", "captured").register(registry);
    this.failed =
        Counter.builder("ordinal.billing.payments").tag("outcome", "failed").register(registry);
    this.refunded =
        Counter.builder("ordinal.billing.payments").tag("outcome", "refunded").register(registry);
    this.cancelledCharges =
        Counter.builder("ordinal.billing.payments")
            .tag("outcome", "not_charged")
            .register(registry);
    this.deferred =
        Counter.builder("ordinal.billing.payments")
            .tag("outcome", "settle_deferred")
            .register(registry);
    this.refundFailed =
        Counter.builder("ordinal.billing.payments")
            .tag("outcome", "refund_failed")
            .register(registry);
    this.fenced =
        Counter.builder("ordinal.billing.payments").tag("outcome", "fenced").register(registry);
  }

  private final MeterRegistry registry;
  private final LoopOwner loop = new LoopOwner();

  /**
   * Charges what is due every {@code interval} until {@link #close()}, under a supervisor of its
   * own (loop {@code payment-collector}).
   */
  public PaymentCollector start(Duration interval) {
    loop.startOwn("payment-collector", registry, "payment-collector", ctx -> run(ctx, interval));
    return this;
  }

  /**
   * Charges what is due every {@code interval}, as loop {@code loopName} of {@code supervisor}: a
   * round that fails (the database is down) fails the loop, which runs again after a backoff.
   */
  public PaymentCollector start(Duration interval, Supervisor supervisor, String loopName) {
    loop.start(supervisor, loopName, ctx -> run(ctx, interval));
    return this;
  }

  /**
   * The loop: one batch at a time, healthy after each (a long backlog is progress, not a stall),
   * {@code interval} between rounds once nothing is due; one pool of workers for the loop's life.
   */
  private void run(LoopContext ctx, Duration interval) throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(workers);
    try {
      while (ctx.running()) {
        int n = batch(pool);
        ctx.healthy();
        if (n == 0) {
          ctx.await(interval);
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Override
  public void close() {
    loop.close();
  }

  public long captured() {
    return (long) captured.count();
  }

  /** Charges everything due from the calling thread; returns how many payments were tried. */
  public int drain() {
    int handled = 0;
    ExecutorService pool = Executors.newFixedThreadPool(workers);
    try {
      int n;
      while ((n = batch(pool)) > 0) {
        handled += n;
      }
      return handled;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return handled;
    } finally {
      pool.shutdownNow();
    }
  }

  /** Claims one batch of due payments and charges them on {@code pool}; returns how many. */
  private int batch(ExecutorService pool) throws InterruptedException {
    CallFence fence = CallFence.startingNow(lease);
    Result<PaymentRecord> due = claim(workers * 4);
    try {
      Parallel.each(pool, due, p -> collect(p, fence));
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
    return due.size();
  }

  /**
   * Claims up to {@code n} due payments for one lease, on the database's clock. Each claim is an
   * attempt ({@code attempts} + 1, its epoch); {@code charge_sent_at} is stamped later, when the
   * attempt's charge request really starts ({@link #callStarts}).
   */
  Result<PaymentRecord> claim(int n) {
    return dsl.update(PAYMENT)
        .set(PAYMENT.NEXT_ATTEMPT_AT, DbClock.nowPlus(lease))
        .set(PAYMENT.ATTEMPTS, PAYMENT.ATTEMPTS.plus(1))
        .where(
            PAYMENT.ORDER_ID.in(
                DSL.select(PAYMENT.ORDER_ID)
                    .from(PAYMENT)
                    .where(
                        PAYMENT
                            .STATUS
                            .eq(PENDING.name())
                            .or(
                                PAYMENT
                                    .STATUS
                                    .eq(CAPTURED.name())
                                    .and(PAYMENT.REFUND_REQUESTED.isTrue())))
                    .and(
                        PAYMENT
                            .NEXT_ATTEMPT_AT
                            .isNull()
                            .or(PAYMENT.NEXT_ATTEMPT_AT.le(DbClock.now())))
                    .orderBy(PAYMENT.UPDATED_AT)
                    .limit(n)
                    .forUpdate()
                    .skipLocked()))
        .returning()
        .fetch();
  }

  /**
   * How long after a charge request may have begun it may still land at the gateway, as far as
   * billing can tell: the lease (the attempt may call that late) plus the client's timeout.
   */
  Duration inFlightWindow() {
    return lease.plus(gateway.callTimeout());
  }

  /**
   * A cancelled order: never charged if it was not (PENDING → CANCELLED), refunded if it was
   * (CAPTURED → REFUNDED). Whether an earlier attempt charged is asked of the gateway by the
   * order's idempotency key, never by charging, also when no charge request is recorded here (a
   * restored database forgets the ones it lost); "not charged" is believed only from a look-up that
   * began after every earlier charge request recorded here could have landed ({@code
   * charge_sent_at} + {@link #inFlightWindow()}), else the payment is looked at again then; one
   * that lands later still is found by {@link PaymentReconciliation}. Whichever comes first — the
   * capture or the cancellation — the result is the same, and nothing moves backwards.
   */
  private void settleCancelled(PaymentRecord p, CallFence fence) {
    if (status(p) == PENDING) {
      // asked even when no charge request is recorded here: a restored database (or a promoted
      // asynchronous replica) may have lost the record of one the gateway took
      OffsetDateTime lookedUpAt = p.getNextAttemptAt().minus(lease);
      Optional<String> charged;
      try {
        charged = gateway.chargeFor(p.getOrderId());
      } catch (IntegratorException e) {
        log.warn("Settling cancelled order {} will be retried: {}", p.getOrderId(), e.getMessage());
        retryLater(p, PENDING, e.getMessage());
        return;
      }
      if (charged.isPresent()) {
        // an earlier attempt charged without billing learning it (a timeout, a crash): recorded,
        // then refunded below
        if (!PaymentLifecycle.capture(dsl, p.getOrderId(), charged.get())) {
          return; // settled meanwhile by another attempt
        }
        captured.increment();
        p.setStatus(CAPTURED.name());
        p.setChargeId(charged.get());
      } else if (p.getChargeSentAt() != null
          && p.getChargeSentAt().plus(inFlightWindow()).isAfter(lookedUpAt)) {
        // an earlier charge request may still land: ask again once it cannot
        PaymentLifecycle.settleAfterWindow(dsl, p.getOrderId(), p.getAttempts(), inFlightWindow());
        deferred.increment();
        return;
      }
    }
    if (status(p) == PENDING) {
      // "never charged" holds only for this attempt: when this collector was slower than its
      // lease, a later attempt may be asking the gateway right now, and what it learns must win
      // over this stale decision
      if (PaymentLifecycle.cancelUncharged(dsl, p.getOrderId(), p.getAttempts())) {
        cancelledCharges.increment();
      }
      return;
    }
    try {
      if (!callStarts(p, CAPTURED, fence)) {
        return;
      }
      gateway.refund(p.getChargeId());
      if (PaymentLifecycle.refunded(dsl, p.getOrderId())) {
        refunded.increment();
      }
    } catch (IntegratorException.Rejected e) {
      // refused for good: bounded, then an operator's case
      boolean givenUp =
          PaymentLifecycle.refundRefused(
              dsl, p, MAX_PERMANENT, backoff(p.getRefundFailures() + 1), e.getMessage());
      if (givenUp) {
        refundFailed.increment();
        log.error(
            "Refund of order {} (charge {}) refused {} times, given up: {}",
            p.getOrderId(),
            p.getChargeId(),
            MAX_PERMANENT,
            e.getMessage());
      }
    } catch (IntegratorException e) {
      log.warn("Refund for order {} will be retried: {}", p.getOrderId(), e.getMessage());
      retryLater(p, CAPTURED, e.getMessage());
    }
  }

  /**
   * The fence immediately before a charge or a refund of payment {@code p}, claimed in {@code
   * from}: the claim's attempt must still be the latest and the payment still in {@code from} (for
   * a charge, {@code charge_sent_at} is stamped now, when the request really starts, and the order
   * must not be cancelled meanwhile), and the lease must still cover the gateway's timeout on the
   * monotonic clock. False (the call is not made) otherwise: the payment is claimed again after its
   * lease.
   */
  private boolean callStarts(PaymentRecord p, PaymentStatus from, CallFence fence) {
    if (!PaymentLifecycle.callStarts(dsl, p.getOrderId(), from, p.getAttempts())) {
      fenced.increment();
      log.info("Payment of order {} not sent: another attempt has claimed it", p.getOrderId());
      return false;
    }
    if (!fence.covers(gateway.callTimeout())) {
      fenced.increment();
      log.warn(
          "Payment of order {} not sent: its lease has {} left, less than the gateway's timeout {};"
              + " tried again after the lease",
          p.getOrderId(),
          fence.remaining(),
          gateway.callTimeout());
      return false;
    }
    return true;
  }

  /** Due again after the backoff of the claim's attempt, still in {@code status}, fenced on it. */
  private void retryLater(PaymentRecord p, PaymentStatus status, String why) {
    PaymentLifecycle.retryLater(
        dsl, p.getOrderId(), status, p.getAttempts(), backoff(p.getAttempts()), why);
  }

  private static PaymentStatus status(PaymentRecord p) {
    return PaymentStatus.valueOf(p.getStatus());
  }

  /** The wait before attempt {@code n + 1}: exponential from 1 s to 5 min, ±50 % jitter. */
  private static Duration backoff(int n) {
    return BACKOFF.delay(Math.max(1, n));
  }

  /** {@link #collect(PaymentRecord, CallFence)} as if claimed just now: for tests. */
  void collect(PaymentRecord p) {
    collect(p, CallFence.startingNow(lease));
  }

  /** One attempt for one claimed payment, whose lease ends at {@code fence} (monotonic clock). */
  void collect(PaymentRecord p, CallFence fence) {
    if (p.getRefundRequested()) {
      settleCancelled(p, fence);
      return;
    }
    try {
      if (!callStarts(p, PENDING, fence)) {
        return;
      }
      String chargeId = gateway.charge(p.getOrderId(), p.getAmount(), p.getCurrency());
      // the order was cancelled while the charge was in flight, and another collector settled it
      // as never charged: the money was taken, so the capture is recorded anyway; refund_requested
      // is set, so the next round refunds it
      if (PaymentLifecycle.capture(dsl, p.getOrderId(), chargeId)) {
        captured.increment();
      }
    } catch (IntegratorException.Rejected e) {
      // declined or refused for this attempt: nothing was charged. Bounded, then FAILED with why
      boolean givenUp =
          PaymentLifecycle.declined(
              dsl, p, MAX_PERMANENT, backoff(p.getDeclines() + 1), e.getMessage());
      if (givenUp) {
        failed.increment();
        log.warn(
            "Charge for order {} refused {} times, FAILED: {}",
            p.getOrderId(),
            MAX_PERMANENT,
            e.getMessage());
      }
    } catch (IntegratorException e) {
      log.warn("Charge for order {} will be retried: {}", p.getOrderId(), e.getMessage());
      retryLater(p, PENDING, e.getMessage());
    }
  }
}
