package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.lab.sim.IntegratorFault;
import dev.ordinal.lab.sim.IntegratorFaults;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.InvoiceNumber;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;
import org.jooq.Record;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An integrator that fails 20 % transiently, rejects 2 % and drops the connection after accepting
 * 10 %: after recovery runs, every number of the series is accounted for exactly once and the
 * integrator never saw one number for two invoices.
 */
@ExtendWith(OrdinalStackExtension.class)
class IntegratorFailuresIT {
  static BillingFixture fx;
  static IntegratorSimulator sim;

  @BeforeAll
  static void start(TestNamespace ns) {
    fx = new BillingFixture(ns, "failures");
    sim =
        BillingFixture.integrator(
            IntegratorFaults.defaults()
                .withLatency(Duration.ZERO, Duration.ofMillis(3))
                .withTransientFailureRate(0.20)
                .withRejectionRate(0.02)
                .withDroppedAfterAcceptRate(0.10),
            RandomGenerator.of("L64X128MixRandom"));
  }

  @AfterAll
  static void stop() {
    sim.close();
    fx.close();
  }

  @Test
  void afterRecoveryEveryNumberIsIssuedErrorOrVoidedOnceAndNoNumberWentToTwoInvoices() {
    int n = 400;
    fx.drafts("FAIL", n);
    InvoiceIssuer issuer =
        fx.issuer(
            InvoiceIssuerConfig.defaults()
                .withWorkers(4)
                .withBackoff(Duration.ofMillis(5), Duration.ofMillis(50)),
            sim.baseUri());
    await()
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              issuer.drain();
              return fx.dsl.fetchCount(
                      INVOICE, INVOICE.SERIES.eq("FAIL").and(INVOICE.STATUS.in("DRAFT", "SENDING")))
                  == 0;
            });

    GapAudit.SeriesReport audit = new GapAudit(fx.dsl).run("FAIL").get(0);
    System.out.printf(
        "integrator failures: %s; injected %d transient, %d rejections, %d dropped; repaired %d%n",
        audit.byStatus(),
        sim.injected(IntegratorFault.TRANSIENT_FAILURE),
        sim.injected(IntegratorFault.REJECTION),
        sim.injected(IntegratorFault.DROPPED_AFTER_ACCEPT),
        issuer.repaired());
    assertThat(sim.injected(IntegratorFault.TRANSIENT_FAILURE)).isPositive();
    assertThat(sim.injected(IntegratorFault.DROPPED_AFTER_ACCEPT)).isPositive();
    assertThat(audit.highest()).isEqualTo(n);
    assertThat(audit.clean()).as("numbers 1..%d, no gap, no duplicate", n).isTrue();
    assertThat(audit.byStatus().keySet()).containsOnly(InvoiceStatus.ISSUED, InvoiceStatus.ERROR);
    int errors = audit.byStatus().getOrDefault(InvoiceStatus.ERROR, 0);
    assertThat(errors)
        .as("one ERROR per rejection")
        .isEqualTo(sim.injected(IntegratorFault.REJECTION));
    assertThat(issuer.repaired())
        .as("dropped-after-accept repaired by look-up")
        .isEqualTo(sim.injected(IntegratorFault.DROPPED_AFTER_ACCEPT));

    // the integrator holds exactly our ISSUED invoices, each under its own number
    assertThat(sim.duplicateAttempts()).isZero();
    Map<InvoiceNumber, String> ours = new HashMap<>();
    for (Record r :
        fx.dsl
            .select(INVOICE.fields())
            .from(INVOICE)
            .where(INVOICE.SERIES.eq("FAIL"))
            .and(INVOICE.STATUS.eq("ISSUED"))
            .fetch()) {
      var inv = r.into(INVOICE);
      ours.put(new InvoiceNumber("FAIL", inv.getNumber()), InvoiceNumbering.uuid(inv).toString());
    }
    assertThat(sim.accepted()).isEqualTo(ours);

    // an operator voids the rejected ones with a reason: still 1..n, all accounted for
    InvoiceOperations ops = new InvoiceOperations(fx.dsl);
    List<Long> rejected =
        fx.dsl
            .select(INVOICE.ID)
            .from(INVOICE)
            .where(INVOICE.SERIES.eq("FAIL"))
            .and(INVOICE.STATUS.eq("ERROR"))
            .fetch(INVOICE.ID);
    rejected.forEach(id -> assertThat(ops.voidInvoice(id, "rejected by the integrator")).isTrue());
    GapAudit.SeriesReport after = new GapAudit(fx.dsl).run("FAIL").get(0);
    assertThat(after.clean()).isTrue();
    assertThat(after.byStatus().getOrDefault(InvoiceStatus.VOIDED, 0)).isEqualTo(errors);
    assertThat(Optional.ofNullable(after.byStatus().get(InvoiceStatus.ISSUED)).orElse(0) + errors)
        .isEqualTo(n);
  }
}
