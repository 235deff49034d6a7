package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.billing.InvoiceSeries.CancelRule;
import dev.ordinal.billing.db.tables.records.InvoiceRecord;
import dev.ordinal.contracts.EventCodec;
import dev.ordinal.contracts.EventType;
import dev.ordinal.contracts.InvoiceVoidedV1;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The law of the series decides what a cancellation does to a reserved number: with {@code VOID} a
 * number the integrator does not hold is voided with the reason; with {@code ISSUE_THEN_CANCEL} it
 * is issued anyway and marked cancelled. Under both, a draft consumes no number, what the
 * integrator holds is issued, and the series stays exactly 1..N with every number accounted for.
 */
@ExtendWith(OrdinalStackExtension.class)
class CancelRuleIT {
  private static final String SERIES = "LAW";

  /** What the next submit does; the look-ups always go to the simulator. */
  enum Mode {
    ACCEPT,
    TRANSIENT,
    REJECT,
    ACCEPT_THEN_DROP
  }

  @ParameterizedTest
  @EnumSource(CancelRule.class)
  void aCancellationAfterTheReservationFollowsTheSeriesRule(CancelRule rule, TestNamespace ns)
      throws Exception {
    try (BillingFixture fx =
            new BillingFixture(ns, "cancel_" + rule.name().toLowerCase(Locale.ROOT));
        IntegratorSimulator sim = BillingFixture.instantIntegrator()) {
      new InvoiceSeries(fx.dsl).setCancelRule(SERIES, rule);
      assertThat(new InvoiceSeries(fx.dsl).list())
          .containsExactly(new InvoiceSeries.Settings(SERIES, 1, rule));
      HttpEInvoiceIntegrator http =
          new HttpEInvoiceIntegrator(sim.baseUri(), Duration.ofSeconds(5));
      Scripted integrator = new Scripted(http);
      // a retry comes due only when the test moves time (at least 15 s: 30 s ± 50 %), not while
      // the drains below run, however slow the machine
      InvoiceIssuer issuer =
          fx.issuer(
              InvoiceIssuerConfig.defaults()
                  .withWorkers(2)
                  .withBackoff(
                      InvoiceIssuerConfig.DEFAULT_MAX_BACKOFF,
                      InvoiceIssuerConfig.DEFAULT_MAX_BACKOFF),
              integrator);

      // cancelled before any reservation: no number
      UUID draft = fx.place(SERIES);
      fx.cancel(draft);
      // transient failure, number 1 kept; cancelled while waiting for the retry
      UUID retrying = issuedThenCancelled(fx, integrator, issuer, Mode.TRANSIENT);
      // rejected (number 2), then cancelled
      UUID rejected = issuedThenCancelled(fx, integrator, issuer, Mode.REJECT);
      // issued (number 3), then cancelled
      UUID issued = issuedThenCancelled(fx, integrator, issuer, Mode.ACCEPT);
      // accepted but the answer was lost (number 4), then cancelled: the integrator holds it
      UUID dropped = issuedThenCancelled(fx, integrator, issuer, Mode.ACCEPT_THEN_DROP);

      assertThat(invoice(fx, draft).getStatus()).isEqualTo("CANCELLED");
      assertThat(invoice(fx, draft).getNumber()).isNull();
      assertThat(invoice(fx, retrying).getStatus()).isEqualTo("SENDING");
      assertThat(invoice(fx, dropped).getStatus()).isEqualTo("SENDING");

      // the retries come due: look-ups first, then the series' rule
      integrator.mode = Mode.ACCEPT;
      Duration window = InvoiceIssuerConfig.defaults().inFlightWindow();
      fx.passTime(window.plus(InvoiceIssuerConfig.DEFAULT_MAX_BACKOFF));
      // VOID: number 2 (rejected, then cancelled) went back to SENDING to be looked up as well
      assertThat(issuer.drain()).isEqualTo(rule == CancelRule.VOID ? 3 : 2);

      // the cancellation arrives while the call is in flight: rejected (number 5), accepted (6)
      UUID rejectedInFlight = cancelledDuringTheCall(fx, integrator, issuer, Mode.REJECT);
      UUID acceptedInFlight = cancelledDuringTheCall(fx, integrator, issuer, Mode.ACCEPT);
      // VOID: the rejected one waits, SENDING, until its submission's in-flight window has passed,
      // then a look-up decides
      assertThat(invoice(fx, rejectedInFlight).getStatus())
          .isEqualTo(rule == CancelRule.VOID ? "SENDING" : "ERROR");
      assertThat(issuer.drain()).as("not due inside the window").isZero();
      fx.passTime(window.plusSeconds(1));
      assertThat(issuer.drain()).isEqualTo(rule == CancelRule.VOID ? 1 : 0);

      List<UUID> numbered =
          List.of(retrying, rejected, issued, dropped, rejectedInFlight, acceptedInFlight);
      List<Long> numbers = new ArrayList<>();
      for (UUID order : numbered) {
        InvoiceRecord inv = invoice(fx, order);
        numbers.add(inv.getNumber());
        assertThat(inv.getCancelledAt()).as("marked cancelled: %s", order).isNotNull();
        assertThat(inv.getCancelReason()).isEqualTo("changed mind");
      }
      assertThat(numbers).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);

      boolean voids = rule == CancelRule.VOID;
      assertThat(invoice(fx, retrying).getStatus()).isEqualTo(voids ? "VOIDED" : "ISSUED");
      assertThat(invoice(fx, rejected).getStatus()).isEqualTo(voids ? "VOIDED" : "ERROR");
      assertThat(invoice(fx, issued).getStatus()).isEqualTo("ISSUED");
      assertThat(invoice(fx, dropped).getStatus())
          .as("the integrator holds it")
          .isEqualTo("ISSUED");
      assertThat(invoice(fx, rejectedInFlight).getStatus()).isEqualTo(voids ? "VOIDED" : "ERROR");
      assertThat(invoice(fx, acceptedInFlight).getStatus()).isEqualTo("ISSUED");
      if (voids) {
        assertThat(invoice(fx, retrying).getVoidReason())
            .isEqualTo("order cancelled: changed mind");
      }
      // each voided number has its InvoiceVoided event, written with the change
      assertThat(
              fx
                  .dsl
                  .select(DSL.field(DSL.name("payload"), String.class))
                  .from(DSL.table(DSL.name("outbox")))
                  .where(
                      DSL.field(DSL.name("event_type"), String.class)
                          .eq(EventType.INVOICE_VOIDED.wireName()))
                  .fetch(r -> EventCodec.fromJson(r.value1(), InvoiceVoidedV1.class).number())
                  .stream()
                  .sorted()
                  .toList())
          .hasSize(voids ? 3 : 0)
          .containsExactlyElementsOf(
              fx.dsl
                  .select(INVOICE.NUMBER)
                  .from(INVOICE)
                  .where(INVOICE.STATUS.eq("VOIDED"))
                  .orderBy(INVOICE.NUMBER)
                  .fetch(r -> r.value1()));

      // what the integrator holds is exactly what is ISSUED here
      List<Long> held = new ArrayList<>();
      for (long n = 1; n <= 7; n++) {
        if (http.lookup(SERIES, n).isPresent()) {
          held.add(n);
        }
      }
      assertThat(held)
          .containsExactlyElementsOf(voids ? List.of(3L, 4L, 6L) : List.of(1L, 3L, 4L, 6L));
      GapAudit.SeriesReport audit = new GapAudit(fx.dsl).run(SERIES).get(0);
      assertThat(audit.clean()).isTrue();
      assertThat(audit.highest()).isEqualTo(6);
      assertThat(sim.duplicateAttempts()).isZero();
    }
  }

  /** Places an order, lets the issuer submit it in {@code mode}, then cancels it. */
  private static UUID issuedThenCancelled(
      BillingFixture fx, Scripted integrator, InvoiceIssuer issuer, Mode mode) {
    UUID order = fx.place(SERIES);
    integrator.mode = mode;
    issuer.drain();
    fx.cancel(order);
    return order;
  }

  /** Places an order and cancels it while the issuer's call in {@code mode} is in flight. */
  private static UUID cancelledDuringTheCall(
      BillingFixture fx, Scripted integrator, InvoiceIssuer issuer, Mode mode) {
    UUID order = fx.place(SERIES);
    integrator.mode = mode;
    integrator.duringCall = () -> fx.cancel(order);
    issuer.drain();
    integrator.duringCall = () -> {};
    return order;
  }

  private static InvoiceRecord invoice(BillingFixture fx, UUID order) {
    return fx.dsl.selectFrom(INVOICE).where(INVOICE.ORDER_ID.eq(order)).fetchOne();
  }

  /** The simulator behind a switch: each submit does what {@link #mode} says. */
  static final class Scripted implements EInvoiceIntegrator {
    private final EInvoiceIntegrator real;
    volatile Mode mode = Mode.ACCEPT;
    volatile Runnable duringCall = () -> {};

    Scripted(EInvoiceIntegrator real) {
      this.real = real;
    }

    @Override
    public void submit(Submission s) throws IntegratorException {
      duringCall.run();
      switch (mode) {
        case ACCEPT -> real.submit(s);
        case TRANSIENT -> throw new IntegratorException.Transient("503 from the script", null);
        case REJECT -> throw new IntegratorException.Rejected("422 from the script");
        case ACCEPT_THEN_DROP -> {
          real.submit(s);
          throw new IntegratorException.OutcomeUnknown("connection dropped by the script", null);
        }
      }
    }

    @Override
    public Optional<RemoteInvoice> lookup(String series, long number) throws IntegratorException {
      return real.lookup(series, number);
    }
  }
}
