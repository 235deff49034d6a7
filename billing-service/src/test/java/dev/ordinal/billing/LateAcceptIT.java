package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.INVOICE_DISCREPANCY;
import static dev.ordinal.billing.db.Tables.ORDER_CANCELLATION;
import static dev.ordinal.billing.db.Tables.PAYMENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.billing.db.tables.records.InvoiceRecord;
import dev.ordinal.lab.sim.Charge;
import dev.ordinal.lab.sim.IntegratorFault;
import dev.ordinal.lab.sim.IntegratorFaults;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.InvoiceNumber;
import dev.ordinal.lab.sim.PaymentGatewayFaults;
import dev.ordinal.lab.sim.PaymentGatewaySimulator;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The integrator stores 10 % of the submissions, and the gateway makes 10 % of the charges, only
 * twice the in-flight window after they arrived (late accepts, late captures: long after the client
 * gave up), while cancellations race the issuer and the collector, aimed at exactly those. Billing
 * voids those numbers and settles those payments as never charged once its window has passed, so
 * the integrator ends up holding VOIDED numbers and the gateway charges for cancelled orders. The
 * periodic reconciliations, running from the start and before any manual run, must report every one
 * within one interval of the first horizon after it landed (and the collector refunds the late
 * charges); the simulators' own records are the oracle.
 */
@ExtendWith(OrdinalStackExtension.class)
class LateAcceptIT {
  private static final String SERIES = "LATE";
  private static final int ORDERS = 1_000;
  private static final Duration CLIENT_TIMEOUT = Duration.ofMillis(500);
  private static final Duration LEASE = Duration.ofSeconds(2);
  // in-flight window of both = lease + client timeout = 2.5 s; late accepts and late captures land
  // twice that after they arrived
  private static final Duration WINDOW = LEASE.plus(CLIENT_TIMEOUT);
  private static final Duration LATE_BY = WINDOW.multipliedBy(2);
  private static final Duration INTERVAL = Duration.ofSeconds(1);
  private static final Duration CAP = Duration.ofSeconds(60);
  // a reconciliation run's own duration and the issuer's poll: what "within one interval" allows
  private static final Duration SLACK = Duration.ofSeconds(1);

  @Test
  void everyVoidedNumberTheIntegratorHoldsAndEveryLateChargeIsReportedByThePeriodicJobs(
      TestNamespace ns) throws Exception {
    try (BillingFixture fx = new BillingFixture(ns, "late");
        IntegratorSimulator sim =
            BillingFixture.integrator(
                IntegratorFaults.defaults()
                    .withLatency(Duration.ZERO, Duration.ofMillis(10))
                    .withTimeouts(0, LATE_BY)
                    .withLateAcceptRate(0.10)
                    .withTransientFailureRate(0.05),
                new SplittableRandom(13));
        PaymentGatewaySimulator gateway =
            new PaymentGatewaySimulator(
                    0,
                    PaymentGatewayFaults.defaults()
                        .withLatency(Duration.ZERO, Duration.ofMillis(10))
                        .withLateCaptures(0.10, LATE_BY),
                    new SplittableRandom(17),
                    Clock.systemUTC())
                .start()) {
      HttpEInvoiceIntegrator http = new HttpEInvoiceIntegrator(sim.baseUri(), CLIENT_TIMEOUT);
      HttpPaymentGateway pay = new HttpPaymentGateway(gateway.baseUri(), CLIENT_TIMEOUT);
      InvoiceIssuerConfig config =
          InvoiceIssuerConfig.defaults()
              .withWorkers(8)
              .withLease(LEASE, CLIENT_TIMEOUT)
              .withBackoff(Duration.ofMillis(50), Duration.ofMillis(400));
      assertThat(config.inFlightWindow()).isEqualTo(WINDOW);
      List<UUID> orders = new ArrayList<>();
      for (int i = 0; i < ORDERS; i++) {
        orders.add(fx.place(SERIES));
      }

      AtomicBoolean racing = new AtomicBoolean(true);
      AtomicInteger cancelled = new AtomicInteger();
      Thread canceller = canceller(fx, orders, racing, cancelled);
      InvoiceIssuer issuer = fx.issuer(config, http);
      PaymentCollector collector =
          new PaymentCollector(fx.dsl, pay, 8, new SimpleMeterRegistry(), LEASE);
      assertThat(collector.inFlightWindow()).isEqualTo(WINDOW);
      // the periodic jobs run from the start; no manual run comes before the assertions on them
      InvoiceReconciliation invoices =
          new InvoiceReconciliation(fx.dsl, http, WINDOW, CAP, new SimpleMeterRegistry());
      PaymentReconciliation payments =
          new PaymentReconciliation(fx.dsl, pay, WINDOW, CAP, new SimpleMeterRegistry());
      try (invoices;
          payments) {
        invoices.start(INTERVAL);
        payments.start(INTERVAL);
        canceller.start();
        issuer.start();
        collector.start(Duration.ofMillis(20));
        try {
          await().atMost(Duration.ofSeconds(180)).until(() -> open(fx) == 0);
        } finally {
          racing.set(false);
          canceller.join();
        }
        // every late accept and late capture lands (the simulators' own count)
        await()
            .atMost(LATE_BY.plusSeconds(10))
            .until(() -> sim.inFlight() == 0 && gateway.inFlight() == 0);

        // the oracle: what the integrator holds for numbers VOIDED here
        Map<Long, InvoiceRecord> voided =
            fx.dsl.selectFrom(INVOICE).where(INVOICE.STATUS.eq("VOIDED")).fetch().stream()
                .collect(Collectors.toMap(InvoiceRecord::getNumber, inv -> inv));
        Set<Long> voidedButHeld =
            voided.keySet().stream()
                .filter(n -> sim.find(new InvoiceNumber(SERIES, n)).isPresent())
                .collect(Collectors.toCollection(TreeSet::new));
        // and what the gateway charged late for cancelled orders
        Set<UUID> cancelledOrders =
            new TreeSet<>(
                fx.dsl
                    .select(ORDER_CANCELLATION.ORDER_ID)
                    .from(ORDER_CANCELLATION)
                    .fetch(ORDER_CANCELLATION.ORDER_ID));
        cancelledOrders.addAll(
            fx.dsl
                .select(PAYMENT.ORDER_ID)
                .from(PAYMENT)
                .where(PAYMENT.REFUND_REQUESTED.isTrue())
                .fetch(PAYMENT.ORDER_ID));
        List<Charge> lateForCancelled =
            gateway.lateCaptures().stream()
                .filter(c -> cancelledOrders.contains(UUID.fromString(c.orderId())))
                .toList();

        // reported by the periodic job alone: a job that checks nothing leaves this empty
        await().atMost(CAP.plus(INTERVAL)).until(() -> reportedVoided(fx).equals(voidedButHeld));
        // and every late charge of a cancelled order refunded at the gateway, and here
        await()
            .atMost(CAP.plus(INTERVAL))
            .until(() -> capturedForCancelled(gateway, cancelledOrders).isEmpty() && open(fx) == 0);
        List<PaymentReconciliation.Discrepancy> reportedCharges = payments.discrepancies();
        System.out.printf(
            "late accepts %d, cancellations %d, voids deferred %d, voided %d, VOIDED but held %d,"
                + " reported %d; late captures %d (%d for cancelled orders), charges reported %d,"
                + " refunds %d, calls fenced %d%n",
            sim.injected(IntegratorFault.LATE_ACCEPT),
            cancelled.get(),
            issuer.voidsDeferred(),
            voided.size(),
            voidedButHeld.size(),
            reportedVoided(fx).size(),
            gateway.lateCaptures().size(),
            lateForCancelled.size(),
            reportedCharges.size(),
            fx.dsl.fetchCount(PAYMENT, PAYMENT.STATUS.eq("REFUNDED")),
            issuer.fenced());
        assertThat(sim.injected(IntegratorFault.LATE_ACCEPT)).isPositive();
        assertThat(issuer.voidsDeferred()).as("look-ups inside the window deferred").isPositive();
        assertThat(voidedButHeld).as("late accepts the window did not cover").isNotEmpty();
        assertThat(reportedVoided(fx)).isEqualTo(voidedButHeld);
        Duration worst = Duration.ZERO;
        for (long n : voidedButHeld) {
          InvoiceRecord inv = voided.get(n);
          Instant landed = sim.find(new InvoiceNumber(SERIES, n)).orElseThrow().acceptedAt();
          OffsetDateTime foundAt =
              fx.dsl
                  .select(INVOICE_DISCREPANCY.FOUND_AT)
                  .from(INVOICE_DISCREPANCY)
                  .where(INVOICE_DISCREPANCY.SERIES.eq(SERIES))
                  .and(INVOICE_DISCREPANCY.NUMBER.eq(n))
                  .fetchOne(INVOICE_DISCREPANCY.FOUND_AT);
          Instant horizon = firstHorizonFrom(inv.getSentAt().toInstant(), landed);
          Duration lag = Duration.between(horizon, foundAt.toInstant());
          worst = lag.compareTo(worst) > 0 ? lag : worst;
          assertThat(foundAt.toInstant())
              .as("%s/%d landed %s, sent %s", SERIES, n, landed, inv.getSentAt())
              .isBefore(
                  firstHorizonFrom(inv.getSentAt().toInstant(), landed).plus(INTERVAL).plus(SLACK));
        }

        assertThat(lateForCancelled).as("late captures for cancelled orders").isNotEmpty();
        assertThat(reportedCharges).as("late charges reported by the periodic job").isNotEmpty();
        Set<String> lateCharges =
            lateForCancelled.stream().map(Charge::chargeId).collect(Collectors.toSet());
        for (PaymentReconciliation.Discrepancy d : reportedCharges) {
          assertThat(lateCharges).as("reported charge was captured late").contains(d.chargeId());
          assertThat(d.localStatus()).isEqualTo("CANCELLED");
          assertThat(d.statusNow()).isEqualTo("REFUNDED");
          Charge c = gateway.find(d.chargeId()).orElseThrow();
          OffsetDateTime sent =
              fx.dsl
                  .select(PAYMENT.CHARGE_SENT_AT)
                  .from(PAYMENT)
                  .where(PAYMENT.ORDER_ID.eq(d.orderId()))
                  .fetchOne(PAYMENT.CHARGE_SENT_AT);
          Instant horizon = firstHorizonFrom(sent.toInstant(), c.capturedAt());
          Duration lag = Duration.between(horizon, d.foundAt().toInstant());
          worst = lag.compareTo(worst) > 0 ? lag : worst;
          assertThat(d.foundAt().toInstant())
              .as("charge %s landed %s, sent %s", c.chargeId(), c.capturedAt(), sent)
              .isBefore(
                  firstHorizonFrom(sent.toInstant(), c.capturedAt()).plus(INTERVAL).plus(SLACK));
        }
        System.out.printf(
            "reported at most %d ms after the first horizon following the landing (interval %d"
                + " ms)%n",
            worst.toMillis(), INTERVAL.toMillis());
      } finally {
        collector.close();
        issuer.close();
      }

      // the numbers: the integrator holds exactly the ISSUED ones plus the reported VOIDED ones
      GapAudit.SeriesReport audit = new GapAudit(fx.dsl).run(SERIES).get(0);
      assertThat(audit.clean()).isTrue();
      int issued = fx.dsl.fetchCount(INVOICE, INVOICE.STATUS.eq("ISSUED"));
      int voidedCount = fx.dsl.fetchCount(INVOICE, INVOICE.STATUS.eq("VOIDED"));
      assertThat(audit.highest()).isEqualTo(issued + voidedCount);
      assertThat(sim.acceptedCount()).isEqualTo(issued + reportedVoided(fx).size());
      assertThat(sim.duplicateAttempts()).isZero();
      assertThat(issuer.acceptedNotSending()).isZero();
      // one charge per order, whatever the late captures
      assertThat(gateway.charges()).isLessThanOrEqualTo(ORDERS);
      for (UUID order : orders) {
        assertThat(gateway.chargesFor(order.toString())).hasSizeLessThanOrEqualTo(1);
      }

      // the manual run agrees, and asks about every VOIDED number
      InvoiceReconciliation.Report manual =
          new InvoiceReconciliation(fx.dsl, http, WINDOW, new SimpleMeterRegistry()).run(true);
      assertThat(manual.checked()).isEqualTo(voidedCount - reportedVoided(fx).size());
      assertThat(manual.absent()).isEqualTo(manual.checked());
      assertThat(manual.discrepancies()).hasSize(reportedVoided(fx).size());
    }
  }

  /**
   * The first horizon (window, 2x, 4x ... cap) after a request sent at {@code sent} that is not
   * before {@code landed}.
   */
  private static Instant firstHorizonFrom(Instant sent, Instant landed) {
    Duration h = WINDOW;
    while (sent.plus(h).isBefore(landed) && h.compareTo(CAP) < 0) {
      h = h.multipliedBy(2).compareTo(CAP) < 0 ? h.multipliedBy(2) : CAP;
    }
    return sent.plus(h).isBefore(landed) ? landed : sent.plus(h);
  }

  /** The VOIDED numbers the reconciliation has reported so far. */
  private static Set<Long> reportedVoided(BillingFixture fx) {
    return new TreeSet<>(
        fx.dsl
            .select(INVOICE_DISCREPANCY.NUMBER)
            .from(INVOICE_DISCREPANCY)
            .where(INVOICE_DISCREPANCY.SERIES.eq(SERIES))
            .and(INVOICE_DISCREPANCY.LOCAL_STATUS.eq("VOIDED"))
            .fetch(INVOICE_DISCREPANCY.NUMBER));
  }

  /** Charges the gateway holds, not refunded, for cancelled orders. */
  private static List<Charge> capturedForCancelled(
      PaymentGatewaySimulator gateway, Set<UUID> cancelledOrders) {
    return cancelledOrders.stream()
        .flatMap(o -> gateway.chargesFor(o.toString()).stream())
        .filter(c -> c.status() == Charge.Status.CAPTURED)
        .toList();
  }

  /**
   * Cancels half the orders whose invoice or payment's last call failed (those that timed out may
   * still land: the late ones), and some others, until {@code racing} is cleared.
   */
  private static Thread canceller(
      BillingFixture fx, List<UUID> orders, AtomicBoolean racing, AtomicInteger cancelled) {
    return new Thread(
        () -> {
          SplittableRandom random = new SplittableRandom(7);
          List<UUID> shuffled = new ArrayList<>(orders);
          Collections.shuffle(shuffled, new java.util.Random(7));
          Set<UUID> done = new java.util.HashSet<>();
          int next = 0;
          while (racing.get()) {
            List<UUID> failed =
                fx.dsl
                    .select(INVOICE.ORDER_ID)
                    .from(INVOICE)
                    .where(INVOICE.STATUS.eq("SENDING"))
                    .and(INVOICE.CANCELLED_AT.isNull())
                    .and(INVOICE.LAST_ERROR.isNotNull())
                    .union(
                        DSL.select(PAYMENT.ORDER_ID)
                            .from(PAYMENT)
                            .where(PAYMENT.STATUS.eq("PENDING"))
                            .and(PAYMENT.REFUND_REQUESTED.isFalse())
                            .and(PAYMENT.LAST_ERROR.isNotNull()))
                    .fetch(INVOICE.ORDER_ID);
            for (UUID order : failed) {
              if (done.add(order) && random.nextInt(2) == 0) {
                fx.cancel(order);
                cancelled.incrementAndGet();
              }
            }
            if (next < shuffled.size() && random.nextInt(4) == 0) {
              UUID order = shuffled.get(next++);
              if (done.add(order)) {
                fx.cancel(order);
                cancelled.incrementAndGet();
              }
            }
            LockSupport.parkNanos(Duration.ofMillis(10).toNanos()); // pacing, not waiting
          }
        },
        "canceller");
  }

  /** Invoices and payments billing has not settled yet. */
  private static int open(BillingFixture fx) {
    return fx.dsl.fetchCount(INVOICE, INVOICE.STATUS.in("DRAFT", "SENDING"))
        + fx.dsl.fetchCount(
            PAYMENT,
            PAYMENT
                .STATUS
                .eq("PENDING")
                .or(PAYMENT.STATUS.eq("CAPTURED").and(PAYMENT.REFUND_REQUESTED.isTrue())));
  }
}
