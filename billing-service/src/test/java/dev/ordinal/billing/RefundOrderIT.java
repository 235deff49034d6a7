package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.PAYMENT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.infra.junit.OrdinalStackExtension;
import dev.ordinal.infra.junit.TestNamespace;
import dev.ordinal.infra.sim.Charge;
import dev.ordinal.infra.sim.PaymentGatewayFaults;
import dev.ordinal.infra.sim.PaymentGatewaySimulator;
import dev.ordinal.messaging.Envelope;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
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
            new SimpleMeterRegistry(),
            Clock.systemUTC());
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
