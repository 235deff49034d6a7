package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.PAYMENT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.billing.db.tables.records.PaymentRecord;
import dev.ordinal.lab.sim.Charge;
import dev.ordinal.lab.sim.PaymentGatewayFaults;
import dev.ordinal.lab.sim.PaymentGatewaySimulator;
import dev.ordinal.messaging.inbox.Envelope;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A cancellation and the capture, in either order: never charged when the cancellation came first,
 * refunded when it came after; a late or repeated step never moves a payment backwards.
 */
@ExtendWith(OrdinalStackExtension.class)
class RefundOrderIT {
  static BillingFixture fx;
  static PaymentGatewaySimulator gateway;
  static PaymentCollector payments;
  static final PaymentGatewayFaults FAST =
      PaymentGatewayFaults.defaults().withLatency(Duration.ZERO, Duration.ofMillis(2));

  @BeforeAll
  static void start(TestNamespace ns) {
    fx = new BillingFixture(ns, "refunds");
    gateway = new PaymentGatewaySimulator(0, FAST).start();
    payments = fx.payments(gateway.baseUri(), 2);
  }

  @AfterAll
  static void stop() {
    gateway.close();
    fx.close();
  }

  @Test
  void aCancellationBeforeTheCaptureMeansNoChargeAtAll() {
    UUID order = UUID.randomUUID();
    apply(OrderMessages.placed(order, null));
    apply(OrderMessages.cancelled(order));
    payments.drain();

    assertThat(status(order)).isEqualTo("CANCELLED");
    assertThat(gateway.chargesFor(order.toString())).isEmpty();
    apply(
        OrderMessages.placed(
            order, null)); // a late redelivery of OrderPlaced under a new message id
    payments.drain();
    assertThat(status(order)).isEqualTo("CANCELLED");
    assertThat(gateway.chargesFor(order.toString())).isEmpty();
  }

  @Test
  void aCancellationAppliedBeforeItsOrderPlacedLeavesTheInvoiceCancelledUnnumberedAndNoCharge() {
    UUID order = UUID.randomUUID();
    apply(OrderMessages.cancelled(order)); // out of order: billing has not seen the order yet
    apply(OrderMessages.placed(order, null));
    payments.drain();

    assertThat(status(order)).isEqualTo("CANCELLED");
    assertThat(gateway.chargesFor(order.toString())).isEmpty();
    var invoice =
        fx.dsl
            .select(INVOICE.STATUS, INVOICE.NUMBER, INVOICE.CANCEL_REASON)
            .from(INVOICE)
            .where(INVOICE.ORDER_ID.eq(order))
            .fetchOne();
    assertThat(invoice.value1()).isEqualTo("CANCELLED");
    assertThat(invoice.value2()).as("no number").isNull();
    assertThat(invoice.value3()).isEqualTo("changed mind");

    apply(OrderMessages.placed(order, null)); // redelivered under another message id: still nothing
    apply(OrderMessages.cancelled(order));
    assertThat(payments.drain()).as("nothing to do").isZero();
    assertThat(gateway.chargesFor(order.toString())).isEmpty();
  }

  @Test
  void aCancellationAfterTheCaptureRefundsTheOneChargeAndNothingMovesBack() {
    UUID order = UUID.randomUUID();
    apply(OrderMessages.placed(order, null));
    payments.drain();
    assertThat(status(order)).isEqualTo("CAPTURED");

    apply(OrderMessages.cancelled(order));
    payments.drain();
    assertThat(status(order)).isEqualTo("REFUNDED");
    assertThat(gateway.chargesFor(order.toString()))
        .singleElement()
        .extracting(Charge::status)
        .isEqualTo(Charge.Status.REFUNDED);

    apply(OrderMessages.placed(order, null));
    apply(OrderMessages.cancelled(order));
    assertThat(payments.drain()).as("nothing left to do").isZero();
    assertThat(status(order)).isEqualTo("REFUNDED");
    assertThat(gateway.chargesFor(order.toString())).hasSize(1);
  }

  @Test
  void aChargeThatLandsAfterTheCancelledPaymentWasSettledIsRecordedAndRefunded() throws Exception {
    UUID order = UUID.randomUUID();
    apply(OrderMessages.placed(order, null));
    // a timeout shorter than the 3 s lease below: a call is only sent while the lease covers it
    PaymentGateway http = new HttpPaymentGateway(gateway.baseUri(), Duration.ofSeconds(2));
    CountDownLatch inCall = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    PaymentGateway late =
        new PaymentGateway() {
          @Override
          public String charge(UUID orderId, BigDecimal amount, String currency)
              throws IntegratorException {
            inCall.countDown();
            try {
              release.await(); // the request is on its way, very slowly
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return http.charge(orderId, amount, currency);
          }

          @Override
          public Optional<String> chargeFor(UUID orderId) throws IntegratorException {
            return http.chargeFor(orderId);
          }

          @Override
          public Duration callTimeout() {
            // well inside the 3 s lease, so the fence lets the request go; it is then held
            return Duration.ofSeconds(1);
          }

          @Override
          public void refund(String chargeId) throws IntegratorException {
            http.refund(chargeId);
          }
        };
    Duration lease = Duration.ofSeconds(3);
    PaymentCollector slow = new PaymentCollector(fx.dsl, late, 1, new SimpleMeterRegistry(), lease);
    PaymentCollector later =
        new PaymentCollector(fx.dsl, http, 1, new SimpleMeterRegistry(), lease);

    PaymentRecord first = slow.claim(1).get(0);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<?> charging = pool.submit(() -> slow.collect(first));
      assertThat(inCall.await(10, TimeUnit.SECONDS)).isTrue();
      apply(OrderMessages.cancelled(order));
      // long after the window: the gateway has nothing under the key, so never charged it is
      fx.passTime(later.inFlightWindow().plusSeconds(1));
      PaymentRecord second = later.claim(1).get(0);
      later.collect(second);
      assertThat(status(order)).isEqualTo("CANCELLED");
      // and then the very late request lands: the money was taken, so it is recorded and refunded
      release.countDown();
      charging.get(10, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }
    assertThat(status(order)).isEqualTo("CAPTURED");
    payments.drain();
    assertThat(status(order)).isEqualTo("REFUNDED");
    assertThat(gateway.chargesFor(order.toString()))
        .singleElement()
        .satisfies(c -> assertThat(c.status()).isEqualTo(Charge.Status.REFUNDED));
  }

  @Test
  void aChargeAnswered503ThenCancelledIsSettledByALookUpWithoutAnotherChargeCall(TestNamespace ns) {
    try (BillingFixture own = new BillingFixture(ns, "refunds_503");
        PaymentGatewaySimulator sim = new PaymentGatewaySimulator(0, FAST).start()) {
      PaymentCollector collector = own.payments(sim.baseUri(), 1);
      UUID order = UUID.randomUUID();
      own.apply(OrderMessages.placed(order, null));
      sim.faults(FAST.withTransientFailureRate(1.0));
      assertThat(collector.drain()).isEqualTo(1);
      sim.faults(FAST);
      assertThat(own.paymentStatus(order)).isEqualTo("PENDING");
      assertThat(sim.chargeCalls()).isOne();
      own.apply(OrderMessages.cancelled(order));

      // inside the first request's window "not found" proves nothing: it waits
      assertThat(collector.drain()).isEqualTo(1);
      assertThat(own.paymentStatus(order)).isEqualTo("PENDING");
      own.passTime(collector.inFlightWindow().plusSeconds(1));
      assertThat(collector.drain()).isEqualTo(1);

      assertThat(own.paymentStatus(order)).isEqualTo("CANCELLED");
      assertThat(sim.chargeCalls() - 1).as("charge calls after the cancel").isZero();
      assertThat(sim.keyLookups()).as("asked by key, inside the window and after").isEqualTo(2);
      assertThat(sim.charges()).isZero();
      assertThat(collector.drain()).as("settled").isZero();
    }
  }

  @Test
  void threeDeclinesEndTheChargeAsFailedWithTheReasonAndNoMoreCalls(TestNamespace ns) {
    try (BillingFixture own = new BillingFixture(ns, "refunds_402");
        PaymentGatewaySimulator sim =
            new PaymentGatewaySimulator(0, FAST.withDeclineRate(1.0)).start()) {
      PaymentCollector collector = own.payments(sim.baseUri(), 1);
      UUID order = UUID.randomUUID();
      own.apply(OrderMessages.placed(order, null));
      for (int i = 1; i <= PaymentCollector.MAX_PERMANENT; i++) {
        assertThat(own.paymentStatus(order)).isEqualTo("PENDING");
        assertThat(collector.drain()).isEqualTo(1);
        assertThat(collector.drain()).as("backing off").isZero();
        own.passTime(Duration.ofMinutes(10)); // past any backoff
      }
      assertThat(collector.drain()).as("given up: nothing due").isZero();

      assertThat(own.paymentStatus(order)).isEqualTo("FAILED");
      assertThat(sim.chargeCalls()).isEqualTo(PaymentCollector.MAX_PERMANENT);
      assertThat(sim.declines()).isEqualTo(PaymentCollector.MAX_PERMANENT);
      assertThat(sim.charges()).isZero();
      assertThat(own.payment(order, PAYMENT.LAST_ERROR))
          .startsWith("The gateway declined the charge")
          .contains("DECLINED");
    }
  }

  private static void apply(Envelope e) {
    fx.apply(e);
  }

  private static String status(UUID order) {
    return fx.paymentStatus(order);
  }
}
