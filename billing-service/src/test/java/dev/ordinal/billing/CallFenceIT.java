package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.PAYMENT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.billing.db.tables.records.InvoiceRecord;
import dev.ordinal.billing.db.tables.records.PaymentRecord;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.InvoiceNumber;
import dev.ordinal.lab.sim.PaymentGatewaySimulator;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The fence immediately before an external call: an attempt whose lease no longer covers the call's
 * timeout (on the monotonic clock), or that another attempt has overtaken, makes no call; the row
 * is taken up again after its lease and sent once, with the same number. The simulators' own counts
 * are the oracle.
 */
@ExtendWith(OrdinalStackExtension.class)
class CallFenceIT {
  private static final InvoiceIssuerConfig CONFIG = InvoiceIssuerConfig.defaults().withWorkers(1);

  @Test
  void aSubmissionWhoseLeaseNoLongerCoversItsTimeoutIsNotMade(TestNamespace ns) {
    try (BillingFixture fx = new BillingFixture(ns, "fence-lease");
        IntegratorSimulator sim = BillingFixture.instantIntegrator()) {
      UUID order = fx.place("FL");
      InvoiceIssuer issuer = fx.issuer(CONFIG, sim.baseUri());
      InvoiceRecord claimed = issuer.claim(1).get(0);
      // 1 s of lease left, the client's timeout is 5 s
      issuer.process(claimed, CallFence.startingNow(Duration.ofSeconds(1)));
      assertThat(sim.calls()).as("submissions made").isZero();
      assertThat(issuer.fenced()).isEqualTo(1);
      assertThat(fx.invoiceStatus(order)).isEqualTo("SENDING");

      fx.passTime(CONFIG.lease().plusSeconds(1));
      assertThat(issuer.drain()).isEqualTo(1);
      assertThat(fx.invoiceStatus(order)).isEqualTo("ISSUED");
      assertThat(sim.submissions()).isEqualTo(Map.of(new InvoiceNumber("FL", 1), 1));
      assertThat(issuer.fenced()).isEqualTo(1);
    }
  }

  @Test
  void anAttemptOvertakenByAnotherMakesNoSubmission(TestNamespace ns) {
    try (IntegratorSimulator sim = BillingFixture.instantIntegrator();
        BillingFixture fx = new BillingFixture(ns, "fence-epoch")) {
      InvoiceIssuer slow = fx.issuer(CONFIG, sim.baseUri());
      InvoiceIssuer next = fx.issuer(CONFIG, sim.baseUri());
      UUID order = fx.place("FE");
      InvoiceRecord first = slow.claim(1).get(0);
      // the slow attempt's lease passes on the database's clock; another attempt claims it
      fx.passTime(CONFIG.lease().plusSeconds(1));
      InvoiceRecord second = next.claim(1).get(0);
      assertThat(second.getAttempts()).isEqualTo(first.getAttempts() + 1);

      // the slow attempt, whose own monotonic clock still shows lease left, wakes up
      slow.process(first, CallFence.startingNow(CONFIG.lease()));
      assertThat(sim.calls()).as("submissions by the overtaken attempt").isZero();
      assertThat(slow.fenced()).isEqualTo(1);

      next.process(second, CallFence.startingNow(CONFIG.lease()));
      assertThat(fx.invoiceStatus(order)).isEqualTo("ISSUED");
      assertThat(sim.submissions()).isEqualTo(Map.of(new InvoiceNumber("FE", 1), 1));
      assertThat(next.fenced()).isZero();
    }
  }

  @Test
  void aChargeWhoseLeaseNoLongerCoversTheGatewayTimeoutIsNotMade(TestNamespace ns) {
    try (BillingFixture fx = new BillingFixture(ns, "fence-charge");
        PaymentGatewaySimulator gateway = BillingFixture.gateway(Duration.ZERO, Duration.ZERO)) {
      UUID order = fx.place("FC");
      PaymentCollector collector = fx.payments(gateway.baseUri(), 1);
      PaymentRecord claimed = collector.claim(1).get(0);
      collector.collect(claimed, CallFence.startingNow(Duration.ofSeconds(1)));
      assertThat(gateway.chargeCalls()).as("charges made").isZero();
      assertThat(fx.payment(order, PAYMENT.CHARGE_SENT_AT))
          .as("stamped: the fence came after the epoch check")
          .isNotNull();
      assertThat(fx.paymentStatus(order)).isEqualTo("PENDING");

      fx.passTime(PaymentCollector.LEASE.plusSeconds(1));
      assertThat(collector.drain()).isEqualTo(1);
      assertThat(fx.paymentStatus(order)).isEqualTo("CAPTURED");
      assertThat(gateway.chargeCalls()).isEqualTo(1);
      assertThat(gateway.charges()).isEqualTo(1);
      assertThat(fx.dsl.fetchCount(INVOICE)).isEqualTo(1);
    }
  }
}
