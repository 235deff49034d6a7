package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.PAYMENT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.billing.db.tables.records.PaymentRecord;
import dev.ordinal.infra.junit.OrdinalStackExtension;
import dev.ordinal.infra.junit.TestNamespace;
import dev.ordinal.infra.sim.Charge;
import dev.ordinal.infra.sim.PaymentGatewayFaults;
import dev.ordinal.infra.sim.PaymentGatewaySimulator;
import dev.ordinal.messaging.Envelope;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
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
  static InvoiceHandler handler = new InvoiceHandler(Clock.systemUTC());

  @BeforeAll
  static void start(TestNamespace ns) {
    fx = new BillingFixture(ns, "refunds");
    gateway =
        new PaymentGatewaySimulator(
                0, PaymentGatewayFaults.defaults().withLatency(Duration.ZERO, Duration.ofMillis(2)))
            .start();
    payments =
        new PaymentCollector(
            fx.dsl,
            new HttpPaymentGateway(gateway.baseUri(), Duration.ofSeconds(5)),
            2,
            new SimpleMeterRegistry());
  }

  @AfterAll
  static void stop() {
    gateway.close();
    fx.close();
  }

  @Test
  void aCancellationBeforeTheCaptureMeansNoChargeAtAll() {
    UUID order = UUID.randomUUID();
    apply(placed(order));
    apply(cancelled(order));
    payments.drain();

    assertThat(status(order)).isEqualTo("CANCELLED");
    assertThat(gateway.chargesFor(order.toString())).isEmpty();
    apply(placed(order)); // a late redelivery of OrderPlaced under a new message id
    payments.drain();
    assertThat(status(order)).isEqualTo("CANCELLED");
    assertThat(gateway.chargesFor(order.toString())).isEmpty();
  }

  @Test
  void aCancellationAppliedBeforeItsOrderPlacedLeavesTheInvoiceCancelledUnnumberedAndNoCharge() {
    UUID order = UUID.randomUUID();
    apply(cancelled(order)); // out of order: billing has not seen the order yet
    apply(placed(order));
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

    apply(placed(order)); // redelivered under another message id: still nothing
    apply(cancelled(order));
    assertThat(payments.drain()).as("nothing to do").isZero();
    assertThat(gateway.chargesFor(order.toString())).isEmpty();
  }

  @Test
  void aCancellationAfterTheCaptureRefundsTheOneChargeAndNothingMovesBack() {
    UUID order = UUID.randomUUID();
    apply(placed(order));
    payments.drain();
    assertThat(status(order)).isEqualTo("CAPTURED");

    apply(cancelled(order));
    payments.drain();
    assertThat(status(order)).isEqualTo("REFUNDED");
    assertThat(gateway.chargesFor(order.toString()))
        .singleElement()
        .extracting(Charge::status)
        .isEqualTo(Charge.Status.REFUNDED);

    apply(placed(order));
    apply(cancelled(order));
    assertThat(payments.drain()).as("nothing left to do").isZero();
    assertThat(status(order)).isEqualTo("REFUNDED");
    assertThat(gateway.chargesFor(order.toString())).hasSize(1);
  }

  @Test
  void aCollectorThatDecidesTooLateThatACancelledOrderWasNeverChargedLosesToTheLaterCharge()
      throws Exception {
    UUID order = UUID.randomUUID();
    apply(placed(order));
    apply(cancelled(order));
    PaymentGateway http = new HttpPaymentGateway(gateway.baseUri(), Duration.ofSeconds(5));
    CountDownLatch charging = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    PaymentGateway held =
        new PaymentGateway() {
          @Override
          public String charge(UUID orderId, BigDecimal amount, String currency)
              throws IntegratorException {
            String id = http.charge(orderId, amount, currency);
            charging.countDown();
            try {
              release.await(); // the charge is made; its answer is late
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return id;
          }

          @Override
          public void refund(String chargeId) throws IntegratorException {
            http.refund(chargeId);
          }
        };
    Duration lease = Duration.ofSeconds(3);
    PaymentCollector slow = new PaymentCollector(fx.dsl, http, 1, new SimpleMeterRegistry(), lease);
    PaymentCollector later =
        new PaymentCollector(fx.dsl, held, 1, new SimpleMeterRegistry(), lease);

    // the first attempt sees the cancellation and would settle it as never charged, but stalls
    PaymentRecord first = slow.claim(1).get(0);
    assertThat(first.getAttempts()).isEqualTo(1);
    fx.passTime(lease.plusSeconds(1));
    // its lease passed: a second attempt asks the gateway, which charges (same key, one charge)
    PaymentRecord second = later.claim(1).get(0);
    assertThat(second.getAttempts()).isEqualTo(2);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<?> settling = pool.submit(() -> later.collect(second));
      assertThat(charging.await(10, TimeUnit.SECONDS)).isTrue();
      slow.collect(first); // the stale "never charged" decision, while the charge is in flight
      release.countDown();
      settling.get(10, TimeUnit.SECONDS);
    } finally {
      pool.shutdownNow();
    }

    assertThat(status(order)).as("the charge was made, so it is refunded").isEqualTo("REFUNDED");
    assertThat(gateway.chargesFor(order.toString()))
        .singleElement()
        .satisfies(c -> assertThat(c.status()).isEqualTo(Charge.Status.REFUNDED));
  }

  private static void apply(Envelope e) {
    fx.dsl.transaction(c -> handler.handle(c.dsl(), e));
  }

  private static String status(UUID order) {
    return fx.dsl
        .select(PAYMENT.STATUS)
        .from(PAYMENT)
        .where(PAYMENT.ORDER_ID.eq(order))
        .fetchOne(PAYMENT.STATUS);
  }

  private static Envelope placed(UUID order) {
    return new Envelope(
        UUID.randomUUID().toString(),
        InvoiceHandler.ORDER_PLACED,
        "order",
        order.toString(),
        "{\"orderId\":\""
            + order
            + "\",\"customerId\":\"c\",\"currency\":\"EUR\",\"total\":\"20.00\"}",
        "t",
        0,
        0);
  }

  private static Envelope cancelled(UUID order) {
    return new Envelope(
        UUID.randomUUID().toString(),
        InvoiceHandler.ORDER_CANCELLED,
        "order",
        order.toString(),
        "{\"orderId\":\"" + order + "\",\"reason\":\"changed mind\"}",
        "t",
        0,
        1);
  }
}
