package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.billing.db.tables.records.InvoiceRecord;
import dev.ordinal.lab.sim.AcceptedInvoice;
import dev.ordinal.lab.sim.IntegratorFault;
import dev.ordinal.lab.sim.IntegratorFaults;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.InvoiceNumber;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The integrator stores 10 % of the submissions only after the client has given up (a late accept),
 * while cancellations race the issuer, aimed at exactly those invoices: a number is voided here
 * only after a look-up outside every earlier submission's in-flight window found nothing, so no
 * number the integrator holds is VOIDED here, and the reconciliation finds nothing; a number forced
 * into the integrator behind billing's back is reported.
 */
@ExtendWith(OrdinalStackExtension.class)
class LateAcceptIT {
  private static final String SERIES = "LATE";
  private static final int ORDERS = 1_000;
  private static final Duration CLIENT_TIMEOUT = Duration.ofMillis(500);
  private static final Duration LEASE = Duration.ofSeconds(2);
  // the integrator stores a late accept this long after it arrived: after the client gave up, and
  // inside the in-flight window (lease + client timeout = 2.5 s)
  private static final Duration LATE_BY = Duration.ofMillis(1_500);

  @Test
  void noNumberTheIntegratorHoldsIsVoidedHereAndReconciliationAgrees(TestNamespace ns)
      throws Exception {
    try (BillingFixture fx = new BillingFixture(ns, "late");
        IntegratorSimulator sim =
            BillingFixture.integrator(
                IntegratorFaults.defaults()
                    .withLatency(Duration.ZERO, Duration.ofMillis(10))
                    .withTimeouts(0, LATE_BY)
                    .withLateAcceptRate(0.10)
                    .withTransientFailureRate(0.05),
                new SplittableRandom(13))) {
      HttpEInvoiceIntegrator http = new HttpEInvoiceIntegrator(sim.baseUri(), CLIENT_TIMEOUT);
      InvoiceIssuerConfig config =
          InvoiceIssuerConfig.defaults()
              .withWorkers(8)
              .withLease(LEASE, CLIENT_TIMEOUT)
              .withBackoff(Duration.ofMillis(50), Duration.ofMillis(400));
      List<UUID> orders = new ArrayList<>();
      for (int i = 0; i < ORDERS; i++) {
        orders.add(fx.place(SERIES));
      }

      AtomicBoolean racing = new AtomicBoolean(true);
      AtomicInteger cancelled = new AtomicInteger();
      Thread canceller =
          new Thread(
              () -> {
                SplittableRandom random = new SplittableRandom(7);
                List<UUID> shuffled = new ArrayList<>(orders);
                Collections.shuffle(shuffled, new java.util.Random(7));
                int next = 0;
                while (racing.get()) {
                  // the invoices whose last submission failed: those that timed out may still be in
                  // flight at the integrator (the late accepts), those answered 503 are not there
                  for (UUID order :
                      fx.dsl
                          .select(INVOICE.ORDER_ID)
                          .from(INVOICE)
                          .where(INVOICE.STATUS.eq("SENDING"))
                          .and(INVOICE.CANCELLED_AT.isNull())
                          .and(INVOICE.LAST_ERROR.isNotNull())
                          .fetch(INVOICE.ORDER_ID)) {
                    if (random.nextInt(2) == 0) {
                      fx.cancel(order);
                      cancelled.incrementAndGet();
                    }
                  }
                  // and some others, wherever they are
                  if (next < shuffled.size() && random.nextInt(4) == 0) {
                    fx.cancel(shuffled.get(next++));
                    cancelled.incrementAndGet();
                  }
                  LockSupport.parkNanos(Duration.ofMillis(10).toNanos()); // pacing, not waiting
                }
              },
              "canceller");
      InvoiceIssuer issuer = fx.issuer(config, http);
      canceller.start();
      issuer.start();
      try {
        await().atMost(Duration.ofSeconds(180)).until(() -> open(fx) == 0);
      } finally {
        racing.set(false);
        canceller.join();
        issuer.close();
      }
      assertThat(open(fx)).as("every invoice settled").isZero();
      // let the last late accepts land before comparing with the integrator
      await().atMost(Duration.ofSeconds(10)).until(() -> sim.inFlight() == 0);

      Map<String, List<InvoiceRecord>> byStatus =
          fx.dsl.selectFrom(INVOICE).fetch().stream()
              .collect(Collectors.groupingBy(InvoiceRecord::getStatus));
      List<InvoiceRecord> voided = byStatus.getOrDefault("VOIDED", List.of());
      List<InvoiceRecord> issued = byStatus.getOrDefault("ISSUED", List.of());
      System.out.printf(
          "late accepts %d, cancellations %d, voids deferred %d, voided %d, issued %d,"
              + " cancelled without number %d, repaired %d%n",
          sim.injected(IntegratorFault.LATE_ACCEPT),
          cancelled.get(),
          issuer.voidsDeferred(),
          voided.size(),
          issued.size(),
          byStatus.getOrDefault("CANCELLED", List.of()).size(),
          issuer.repaired());
      assertThat(sim.injected(IntegratorFault.LATE_ACCEPT))
          .as("late accepts happened")
          .isPositive();
      assertThat(issuer.voidsDeferred())
          .as("look-ups inside the window found nothing and did not void")
          .isPositive();
      assertThat(voided).as("cancellations voided numbers").isNotEmpty();

      List<String> voidedButHeld =
          voided.stream()
              .filter(inv -> sim.find(new InvoiceNumber(SERIES, inv.getNumber())).isPresent())
              .map(inv -> SERIES + "/" + inv.getNumber())
              .toList();
      assertThat(voidedButHeld).as("VOIDED here, held by the integrator").isEmpty();
      for (InvoiceRecord inv : issued) {
        Optional<AcceptedInvoice> held = sim.find(new InvoiceNumber(SERIES, inv.getNumber()));
        assertThat(held).as("issued %s", inv.getNumber()).isPresent();
        assertThat(held.get().invoiceId()).isEqualTo(InvoiceNumbering.uuid(inv).toString());
      }
      assertThat(sim.acceptedCount()).as("held = ISSUED here").isEqualTo(issued.size());
      assertThat(sim.duplicateAttempts()).isZero();
      assertThat(issuer.acceptedNotSending()).isZero();
      GapAudit.SeriesReport audit = new GapAudit(fx.dsl).run(SERIES).get(0);
      assertThat(audit.clean()).isTrue();
      assertThat(audit.highest()).isEqualTo(voided.size() + issued.size());
      assertThat(audit.byStatus())
          .containsEntry(InvoiceStatus.ISSUED, issued.size())
          .containsEntry(InvoiceStatus.VOIDED, voided.size());

      InvoiceReconciliation reconciliation =
          new InvoiceReconciliation(
              fx.dsl, http, config.inFlightWindow(), new SimpleMeterRegistry());
      InvoiceReconciliation.Report clean = reconciliation.run(true);
      assertThat(clean.checked()).isEqualTo(voided.size());
      assertThat(clean.absent()).isEqualTo(voided.size());
      assertThat(clean.discrepancies()).isEmpty();

      // forced: the integrator gets a voided number behind billing's back
      sim.faults(sim.faults().withoutFaults());
      InvoiceRecord forced = voided.get(0);
      http.submit(
          new EInvoiceIntegrator.Submission(
              SERIES,
              forced.getNumber(),
              InvoiceNumbering.uuid(forced),
              forced.getOrderId(),
              forced.getTotal(),
              forced.getCurrency()));
      InvoiceReconciliation.Report found = reconciliation.run(true);
      assertThat(found.checked()).isEqualTo(voided.size());
      assertThat(found.discrepancies())
          .singleElement()
          .satisfies(
              d -> {
                assertThat(d.invoiceRowId()).isEqualTo(forced.getId());
                assertThat(d.number()).isEqualTo(forced.getNumber());
                assertThat(d.localStatus()).isEqualTo("VOIDED");
                assertThat(d.heldAs()).isEqualTo(InvoiceNumbering.uuid(forced));
              });
      // the periodic run asks only about what is not confirmed absent yet, and still reports it
      assertThat(reconciliation.run(false).discrepancies()).hasSize(1);
    }
  }

  private static int open(BillingFixture fx) {
    return fx.dsl.fetchCount(INVOICE, INVOICE.STATUS.in("DRAFT", "SENDING"));
  }
}
