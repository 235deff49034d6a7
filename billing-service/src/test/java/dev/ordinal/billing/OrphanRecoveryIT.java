package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.InvoiceNumber;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A worker killed between the integrator's success and the local commit: the invoice stays SENDING;
 * once its lease has passed, recovery finds it at the integrator by number and marks it ISSUED,
 * without a new number and without sending it again.
 */
@ExtendWith(OrdinalStackExtension.class)
class OrphanRecoveryIT {

  @Test
  void aWorkerKilledAfterTheIntegratorAcceptedIsRepairedWithoutANewNumber(TestNamespace ns)
      throws Exception {
    try (BillingFixture fx = new BillingFixture(ns, "orphan");
        IntegratorSimulator sim = BillingFixture.instantIntegrator()) {
      List<Long> drafts = fx.drafts("ORPH", 3);
      HttpEInvoiceIntegrator http =
          new HttpEInvoiceIntegrator(sim.baseUri(), Duration.ofSeconds(5));
      AtomicBoolean killNext = new AtomicBoolean(true);
      EInvoiceIntegrator dyingAfterSuccess =
          new EInvoiceIntegrator() {
            @Override
            public void submit(Submission s) throws IntegratorException {
              http.submit(s);
              if (killNext.getAndSet(false)) {
                // the process dies here: the integrator has the invoice, our commit never happens
                throw new IllegalStateException("killed after the integrator accepted");
              }
            }

            @Override
            public Optional<RemoteInvoice> lookup(String series, long number)
                throws IntegratorException {
              return http.lookup(series, number);
            }
          };
      InvoiceIssuer dying =
          fx.issuer(InvoiceIssuerConfig.defaults().withWorkers(1), dyingAfterSuccess);
      dying.drain();
      var orphan = fx.dsl.selectFrom(INVOICE).where(INVOICE.ID.eq(drafts.get(0))).fetchOne();
      assertThat(orphan.getStatus()).isEqualTo("SENDING");
      assertThat(orphan.getNumber()).isEqualTo(1);
      assertThat(sim.find(new InvoiceNumber("ORPH", 1))).isPresent();

      // a new worker, before the lease passed: leaves the orphan alone
      InvoiceIssuer recovery = fx.issuer(InvoiceIssuerConfig.defaults(), http);
      assertThat(recovery.drain()).isZero();
      fx.passTime(InvoiceIssuerConfig.DEFAULT_LEASE.plusSeconds(1));
      assertThat(recovery.drain()).isEqualTo(1);

      var repaired = fx.dsl.selectFrom(INVOICE).where(INVOICE.ID.eq(drafts.get(0))).fetchOne();
      assertThat(repaired.getStatus()).isEqualTo("ISSUED");
      assertThat(repaired.getNumber()).as("the same number").isEqualTo(1);
      assertThat(recovery.repaired()).isEqualTo(1);
      assertThat(sim.submissions().get(new InvoiceNumber("ORPH", 1)))
          .as("not sent again")
          .isEqualTo(1);
      GapAudit.SeriesReport audit = new GapAudit(fx.dsl).run("ORPH").get(0);
      assertThat(audit.clean()).isTrue();
      assertThat(audit.byStatus()).containsEntry(InvoiceStatus.ISSUED, 3);
      assertThat(sim.duplicateAttempts()).isZero();
    }
  }
}
