package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.PAYMENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.PaymentGatewaySimulator;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two billing instances whose clocks differ by 40 s, with leases shorter than that: leases and due
 * times are the database's ({@code now()}), so neither takes an invoice or a payment the other
 * holds. Every integrator and gateway call is watched per invoice and per order: two at once for
 * the same one would be a double hold.
 */
@ExtendWith(OrdinalStackExtension.class)
class ClockSkewIT {
  private static final int ORDERS = 200;
  private static final Duration SKEW = Duration.ofSeconds(40);

  @Test
  void instancesWhoseClocksDifferBy40sNeverHoldTheSameInvoiceOrPayment(TestNamespace ns)
      throws Exception {
    try (BillingFixture fx = new BillingFixture(ns, "skew");
        IntegratorSimulator sim =
            BillingFixture.integrator(Duration.ofMillis(50), Duration.ofMillis(250));
        PaymentGatewaySimulator gateway =
            BillingFixture.gateway(Duration.ofMillis(50), Duration.ofMillis(250))) {
      for (int i = 0; i < ORDERS; i++) {
        fx.place("SKEW");
      }
      Watched watched = new Watched();
      EInvoiceIntegrator integrator =
          watched.integrator(new HttpEInvoiceIntegrator(sim.baseUri(), Duration.ofSeconds(2)));
      PaymentGateway payments =
          watched.gateway(new HttpPaymentGateway(gateway.baseUri(), Duration.ofSeconds(2)));
      // a lease of 3 s, far shorter than the skew: with host clocks, the instance 40 s ahead would
      // take every invoice the other had just claimed
      InvoiceIssuerConfig config =
          InvoiceIssuerConfig.defaults()
              .withWorkers(4)
              .withLease(Duration.ofSeconds(3), Duration.ofSeconds(2));
      Clock behind = Clock.systemUTC();
      Clock ahead = Clock.offset(behind, SKEW);
      try (InvoiceIssuer a =
              new InvoiceIssuer(config, fx.dsl, integrator, new SimpleMeterRegistry(), behind)
                  .start();
          InvoiceIssuer b =
              new InvoiceIssuer(config, fx.dsl, integrator, new SimpleMeterRegistry(), ahead)
                  .start();
          PaymentCollector pa =
              new PaymentCollector(
                      fx.dsl, payments, 4, new SimpleMeterRegistry(), Duration.ofSeconds(3))
                  .start(Duration.ofMillis(20));
          PaymentCollector pb =
              new PaymentCollector(
                      fx.dsl, payments, 4, new SimpleMeterRegistry(), Duration.ofSeconds(3))
                  .start(Duration.ofMillis(20))) {
        await()
            .atMost(Duration.ofSeconds(120))
            .until(
                () ->
                    fx.dsl.fetchCount(INVOICE, INVOICE.STATUS.eq("ISSUED")) == ORDERS
                        && fx.dsl.fetchCount(PAYMENT, PAYMENT.STATUS.eq("CAPTURED")) == ORDERS);
        System.out.printf(
            "issued by the instance behind %d, ahead %d; calls overlapping on one invoice %d,"
                + " on one payment %d%n",
            a.issued(), b.issued(), watched.invoiceOverlaps.get(), watched.paymentOverlaps.get());
        assertThat(a.issued() + b.issued()).isEqualTo(ORDERS);
        assertThat(a.issued()).as("both instances worked").isPositive();
        assertThat(b.issued()).as("both instances worked").isPositive();
      }
      assertThat(watched.invoiceOverlaps.get()).as("two calls at once for one invoice").isZero();
      assertThat(watched.paymentOverlaps.get()).as("two calls at once for one payment").isZero();
      assertThat(sim.submissions().values()).hasSize(ORDERS).allMatch(n -> n == 1);
      assertThat(gateway.charges()).isEqualTo(ORDERS);
      assertThat(new GapAudit(fx.dsl).run("SKEW").get(0).clean()).isTrue();
    }
  }

  /** Counts calls that start while another call for the same invoice or order is running. */
  static final class Watched {
    final Map<Object, AtomicInteger> running = new ConcurrentHashMap<>();
    final AtomicInteger invoiceOverlaps = new AtomicInteger();
    final AtomicInteger paymentOverlaps = new AtomicInteger();

    interface Call<T> {
      T run() throws IntegratorException;
    }

    <T> T watch(Object key, AtomicInteger overlaps, Call<T> call) throws IntegratorException {
      AtomicInteger n = running.computeIfAbsent(key, k -> new AtomicInteger());
      if (n.incrementAndGet() > 1) {
        overlaps.incrementAndGet();
      }
      try {
        return call.run();
      } finally {
        n.decrementAndGet();
      }
    }

    EInvoiceIntegrator integrator(EInvoiceIntegrator real) {
      return new EInvoiceIntegrator() {
        @Override
        public void submit(Submission s) throws IntegratorException {
          watch(
              s.series() + "/" + s.number(),
              invoiceOverlaps,
              () -> {
                real.submit(s);
                return null;
              });
        }

        @Override
        public Optional<RemoteInvoice> lookup(String series, long number)
            throws IntegratorException {
          return watch(series + "/" + number, invoiceOverlaps, () -> real.lookup(series, number));
        }
      };
    }

    PaymentGateway gateway(PaymentGateway real) {
      return new PaymentGateway() {
        @Override
        public String charge(UUID orderId, BigDecimal amount, String currency)
            throws IntegratorException {
          return watch(orderId, paymentOverlaps, () -> real.charge(orderId, amount, currency));
        }

        @Override
        public Optional<String> chargeFor(UUID orderId) throws IntegratorException {
          return watch(orderId, paymentOverlaps, () -> real.chargeFor(orderId));
        }

        @Override
        public Duration callTimeout() {
          return real.callTimeout();
        }

        @Override
        public void refund(String chargeId) throws IntegratorException {
          watch(
              chargeId,
              paymentOverlaps,
              () -> {
                real.refund(chargeId);
                return null;
              });
        }
      };
    }
  }
}
