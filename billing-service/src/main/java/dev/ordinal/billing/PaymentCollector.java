package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.PAYMENT;

import dev.ordinal.billing.db.tables.records.PaymentRecord;
import dev.ordinal.runtime.LoopContext;
import dev.ordinal.runtime.Supervisor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jooq.DSLContext;
import org.jooq.Result;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Charges pending payments, one charge per order: the gateway call carries the order id as
 * idempotency key, and the local transition is guarded ({@code WHERE status = 'PENDING'}), so
 * retries, duplicates and crashes never charge twice or move a payment backwards.
 */
public final class PaymentCollector implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PaymentCollector.class);
  static final Duration LEASE = Duration.ofSeconds(30);
  private static final Duration RETRY_AFTER = Duration.ofSeconds(1);

  private final DSLContext dsl;
  private final PaymentGateway gateway;
  private final int workers;
  private final Duration lease;
  private final Counter captured;
  private final Counter failed;
  private final Counter refunded;
  private final Counter cancelledCharges;

  public PaymentCollector(
      DSLContext dsl, PaymentGateway gateway, int workers, MeterRegistry registry) {
    this(dsl, gateway, workers, registry, LEASE);
  }

  /**
   * @param lease how long a claimed payment is left alone: a collector that dies mid-charge leaves
   *     it to be tried again (same idempotency key, so never charged twice) after this
   */
  public PaymentCollector(
      DSLContext dsl, PaymentGateway gateway, int workers, MeterRegistry registry, Duration lease) {
    if (lease == null || lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("lease must be positive, not " + lease);
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
  }

  private final MeterRegistry registry;
  private Supervisor.SupervisedLoop loop;
  private Supervisor ownSupervisor;

  /**
   * Charges what is due every {@code interval} until {@link #close()}, under a supervisor of its
   * own (loop {@code payment-collector}).
   */
  public synchronized PaymentCollector start(Duration interval) {
    ownSupervisor = new Supervisor("payment-collector", registry);
    return start(interval, ownSupervisor, "payment-collector");
  }

  /**
   * Charges what is due every {@code interval}, as loop {@code loopName} of {@code supervisor}: a
   * round that fails (the database is down) fails the loop, which runs again after a backoff.
   */
  public synchronized PaymentCollector start(
      Duration interval, Supervisor supervisor, String loopName) {
    if (loop != null) {
      throw new IllegalStateException("already started");
    }
    loop = supervisor.start(loopName, ctx -> run(ctx, interval));
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
  public synchronized void close() {
    if (loop != null) {
      loop.close();
    }
    if (ownSupervisor != null) {
      ownSupervisor.close();
    }
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
    Result<PaymentRecord> due = claim(workers * 4);
    List<Future<?>> running = new ArrayList<>();
    for (PaymentRecord p : due) {
      running.add(pool.submit(() -> collect(p)));
    }
    for (Future<?> f : running) {
      try {
        f.get();
      } catch (java.util.concurrent.ExecutionException e) {
        throw new IllegalStateException(e.getCause());
      }
    }
    return due.size();
  }

  /** Claims up to {@code n} due payments for one lease, on the database's clock. */
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
                            .eq("PENDING")
                            .or(
                                PAYMENT
                                    .STATUS
                                    .eq("CAPTURED")
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
   * A cancelled order: never charged if it was not yet (PENDING → CANCELLED), refunded if it was
   * (CAPTURED → REFUNDED). Whichever comes first — the capture or the cancellation — the result is
   * the same, and nothing moves backwards.
   */
  private void settleCancelled(PaymentRecord p) {
    if ("PENDING".equals(p.getStatus()) && p.getAttempts() > 1) {
      // an earlier attempt may have charged without billing learning it (a timeout, a crash):
      // the same idempotency key returns that charge (or makes one), and it is refunded below, so
      // a cancelled order never keeps a charge
      try {
        String chargeId = gateway.charge(p.getOrderId(), p.getAmount(), p.getCurrency());
        int changed =
            dsl.update(PAYMENT)
                .set(PAYMENT.STATUS, "CAPTURED")
                .set(PAYMENT.CHARGE_ID, chargeId)
                .set(PAYMENT.UPDATED_AT, DbClock.now())
                .where(PAYMENT.ORDER_ID.eq(p.getOrderId()))
                .and(PAYMENT.STATUS.eq("PENDING"))
                .execute();
        if (changed == 0) {
          // settled meanwhile: captured and refunded by another attempt (nothing to do), or marked
          // never charged by an earlier one that decided before this charge: then this charge is
          // recorded and refunded below
          changed =
              dsl.update(PAYMENT)
                  .set(PAYMENT.STATUS, "CAPTURED")
                  .set(PAYMENT.CHARGE_ID, chargeId)
                  .set(PAYMENT.UPDATED_AT, DbClock.now())
                  .where(PAYMENT.ORDER_ID.eq(p.getOrderId()))
                  .and(PAYMENT.STATUS.eq("CANCELLED"))
                  .execute();
          if (changed == 0) {
            return;
          }
        }
        captured.increment();
        p.setStatus("CAPTURED");
        p.setChargeId(chargeId);
      } catch (IntegratorException.Rejected e) {
        // refused for good: certainly not charged, so never charged it is (below)
      } catch (IntegratorException e) {
        log.warn("Settling cancelled order {} will be retried: {}", p.getOrderId(), e.getMessage());
        dsl.update(PAYMENT)
            .set(PAYMENT.NEXT_ATTEMPT_AT, DbClock.nowPlus(RETRY_AFTER))
            .where(PAYMENT.ORDER_ID.eq(p.getOrderId()))
            .and(PAYMENT.STATUS.eq("PENDING"))
            .execute();
        return;
      }
    }
    if ("PENDING".equals(p.getStatus())) {
      // "never charged" holds only for this attempt: when this collector was slower than its
      // lease, a later attempt may be asking the gateway (and charging) right now, and its capture
      // must win over this stale decision
      int changed =
          dsl.update(PAYMENT)
              .set(PAYMENT.STATUS, "CANCELLED")
              .set(PAYMENT.NEXT_ATTEMPT_AT, (OffsetDateTime) null)
              .set(PAYMENT.UPDATED_AT, DbClock.now())
              .where(PAYMENT.ORDER_ID.eq(p.getOrderId()))
              .and(PAYMENT.STATUS.eq("PENDING"))
              .and(PAYMENT.ATTEMPTS.eq(p.getAttempts()))
              .execute();
      if (changed == 1) {
        cancelledCharges.increment();
      }
      return;
    }
    try {
      gateway.refund(p.getChargeId());
      int changed =
          dsl.update(PAYMENT)
              .set(PAYMENT.STATUS, "REFUNDED")
              .set(PAYMENT.NEXT_ATTEMPT_AT, (OffsetDateTime) null)
              .set(PAYMENT.UPDATED_AT, DbClock.now())
              .where(PAYMENT.ORDER_ID.eq(p.getOrderId()))
              .and(PAYMENT.STATUS.eq("CAPTURED"))
              .execute();
      if (changed == 1) {
        refunded.increment();
      }
    } catch (IntegratorException e) {
      log.warn("Refund for order {} will be retried: {}", p.getOrderId(), e.getMessage());
      dsl.update(PAYMENT)
          .set(PAYMENT.NEXT_ATTEMPT_AT, DbClock.nowPlus(RETRY_AFTER))
          .where(PAYMENT.ORDER_ID.eq(p.getOrderId()))
          .and(PAYMENT.STATUS.eq("CAPTURED"))
          .execute();
    }
  }

  // visible for testing
  void collect(PaymentRecord p) {
    if (p.getRefundRequested()) {
      settleCancelled(p);
      return;
    }
    try {
      String chargeId = gateway.charge(p.getOrderId(), p.getAmount(), p.getCurrency());
      int changed =
          dsl.update(PAYMENT)
              .set(PAYMENT.STATUS, "CAPTURED")
              .set(PAYMENT.CHARGE_ID, chargeId)
              .set(PAYMENT.NEXT_ATTEMPT_AT, (OffsetDateTime) null)
              .set(PAYMENT.UPDATED_AT, DbClock.now())
              .where(PAYMENT.ORDER_ID.eq(p.getOrderId()))
              .and(PAYMENT.STATUS.eq("PENDING"))
              .execute();
      if (changed == 0) {
        // the order was cancelled while the charge was in flight, and another collector settled
        // it as never charged: the money was taken, so record the capture; refund_requested is
        // set, so the next round refunds it
        changed =
            dsl.update(PAYMENT)
                .set(PAYMENT.STATUS, "CAPTURED")
                .set(PAYMENT.CHARGE_ID, chargeId)
                .set(PAYMENT.NEXT_ATTEMPT_AT, (OffsetDateTime) null)
                .set(PAYMENT.UPDATED_AT, DbClock.now())
                .where(PAYMENT.ORDER_ID.eq(p.getOrderId()))
                .and(PAYMENT.STATUS.eq("CANCELLED"))
                .and(PAYMENT.REFUND_REQUESTED.isTrue())
                .execute();
      }
      if (changed == 1) {
        captured.increment();
      }
    } catch (IntegratorException.Rejected e) {
      failed.increment();
      dsl.update(PAYMENT)
          .set(PAYMENT.STATUS, "FAILED")
          .set(PAYMENT.UPDATED_AT, DbClock.now())
          .where(PAYMENT.ORDER_ID.eq(p.getOrderId()))
          .and(PAYMENT.STATUS.eq("PENDING"))
          .execute();
    } catch (IntegratorException e) {
      log.warn("Charge for order {} will be retried: {}", p.getOrderId(), e.getMessage());
      dsl.update(PAYMENT)
          .set(PAYMENT.NEXT_ATTEMPT_AT, DbClock.nowPlus(RETRY_AFTER))
          .where(PAYMENT.ORDER_ID.eq(p.getOrderId()))
          .and(PAYMENT.STATUS.eq("PENDING"))
          .execute();
    }
  }
}
