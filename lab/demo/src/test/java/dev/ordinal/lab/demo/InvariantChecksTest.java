package dev.ordinal.lab.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.billing.InvoiceNumbering;
import dev.ordinal.lab.sim.InvoiceNumber;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Each invariant held on the evidence of a good run, and each one broken, alone, by evidence built
 * by hand to show what breaks it, with the exact reason.
 */
class InvariantChecksTest {
  static final UUID O1 = id(1);
  static final UUID O2 = id(2);
  static final UUID O3 = id(3);
  static final UUID OUT_OF_ORDER = id(4);
  static final UUID PHANTOM = id(9);
  static final Instant AT = Instant.parse("2026-01-01T00:00:00Z");

  static UUID id(int n) {
    return UUID.fromString("00000000-0000-0000-0000-00000000000" + n);
  }

  /**
   * A good run: three orders (the second cancelled after its invoice was issued, so refunded), one
   * order cancelled before it was placed, one OrderPlaced redelivered and one re-published.
   */
  static final class Run {
    List<UUID> orders = List.of(O1, O2, O3);
    Set<UUID> cancelled = Set.of(O2);
    Set<UUID> cancelledBeforePlaced = Set.of(OUT_OF_ORDER);
    Evidence.Phantom phantom = new Evidence.Phantom(PHANTOM, "m-phantom", 0);
    List<String> outboxIds = List.of("m1", "m2", "m3", "c2");
    Set<String> onKafka = new HashSet<>(Set.of("m1", "m2", "m3", "c2", "r1", "x4c", "x4p"));
    Map<String, List<String>> types = new HashMap<>();
    int inboxRows = 7;
    long duplicatesSkipped = 1;
    int idempotentMismatches = 0;
    List<Evidence.Invoice> invoices = new ArrayList<>();
    Map<String, Long> nextNumbers = new HashMap<>(Map.of("F2026-A", 3L, "F2026-B", 2L));
    Map<UUID, Evidence.Payment> payments = new HashMap<>();
    Map<UUID, List<String>> charges = new HashMap<>();
    Map<InvoiceNumber, String> held = new HashMap<>();
    long redelivered = 1;
    int duplicateAttempts = 0;
    int maxSameSeriesInFlight = 2;

    Run() {
      types.put(O1.toString(), List.of("OrderPlaced", "OrderPlaced", "OrderPlaced"));
      types.put(O2.toString(), List.of("OrderPlaced", "OrderCancelled"));
      types.put(O3.toString(), List.of("OrderPlaced"));
      types.put(OUT_OF_ORDER.toString(), List.of("OrderCancelled", "OrderPlaced"));
      invoices.add(new Evidence.Invoice(O1, "F2026-A", 1L, "ISSUED"));
      invoices.add(new Evidence.Invoice(O2, "F2026-A", 2L, "ISSUED"));
      invoices.add(new Evidence.Invoice(O3, "F2026-B", 1L, "ISSUED"));
      invoices.add(new Evidence.Invoice(OUT_OF_ORDER, "F2026-A", null, "CANCELLED"));
      payments.put(O1, payment("CAPTURED"));
      payments.put(O2, payment("REFUNDED"));
      payments.put(O3, payment("CAPTURED"));
      payments.put(OUT_OF_ORDER, payment("CANCELLED"));
      charges.put(O1, List.of("ch-1"));
      charges.put(O2, List.of("ch-2"));
      charges.put(O3, List.of("ch-3"));
      held.put(new InvoiceNumber("F2026-A", 1), InvoiceNumbering.invoiceId(O1).toString());
      held.put(new InvoiceNumber("F2026-A", 2), InvoiceNumbering.invoiceId(O2).toString());
      held.put(new InvoiceNumber("F2026-B", 1), InvoiceNumbering.invoiceId(O3).toString());
    }

    static Evidence.Payment payment(String status) {
      return new Evidence.Payment(status, 1, status.equals("REFUNDED"), AT);
    }

    Evidence evidence() {
      return new Evidence(
          orders,
          cancelled,
          cancelledBeforePlaced,
          phantom,
          outboxIds,
          onKafka,
          types,
          inboxRows,
          duplicatesSkipped,
          idempotentMismatches,
          invoices,
          nextNumbers,
          payments,
          charges,
          held,
          new Evidence.TopicCounts(10, 4, redelivered, 1, 0),
          new Evidence.IntegratorCounts(5, 3, 1, 1, 0, duplicateAttempts, maxSameSeriesInFlight));
    }
  }

  /** Every invariant held, but {@code broken} with the reason given. */
  static Map<Invariant, Verdict> allHeldBut(Object... brokenAndReason) {
    Map<Invariant, Verdict> expected = new EnumMap<>(Invariant.class);
    for (Invariant i : Invariant.values()) {
      expected.put(i, Verdict.HELD);
    }
    for (int k = 0; k < brokenAndReason.length; k += 2) {
      expected.put((Invariant) brokenAndReason[k], Verdict.broken((String) brokenAndReason[k + 1]));
    }
    return expected;
  }

  /**
   * {@code run}'s evidence holds every invariant but {@code broken}, which breaks for {@code
   * reason}.
   */
  private static void assertOnlyBroken(Run run, Invariant broken, String reason) {
    assertThat(InvariantChecks.check(run.evidence())).isEqualTo(allHeldBut(broken, reason));
  }

  @Test
  void theEvidenceOfAGoodRunHoldsEveryInvariantInDesignOrder() {
    Map<Invariant, Verdict> verdicts = InvariantChecks.check(new Run().evidence());

    assertThat(verdicts).isEqualTo(allHeldBut());
    assertThat(verdicts.keySet().stream().map(Invariant::key))
        .containsExactly(
            "no_lost_event",
            "no_phantom_event",
            "order_per_aggregate",
            "effectively_once",
            "one_invoice_one_charge_per_order",
            "gapless_unique_numbers",
            "no_lock_across_network_io");
  }

  @Test
  void noLostEventBreaksWhenAnOutboxRowIsNotOnKafka() {
    Run run = new Run();
    run.onKafka.remove("m3");
    run.inboxRows = 6; // billing never saw it either

    assertOnlyBroken(run, Invariant.NO_LOST_EVENT, "1 of 4 outbox rows not on Kafka: m3");
  }

  @Test
  void noLostEventBreaksWhenACancellationWroteNoOutboxRow() {
    Run run = new Run();
    run.outboxIds = List.of("m1", "m2", "m3");

    assertOnlyBroken(
        run, Invariant.NO_LOST_EVENT, "3 outbox rows for 3 orders and 1 cancellations, not 4");
  }

  @Test
  void noPhantomEventBreaksWhenTheRolledBackOrderLeftAnythingBehind() {
    Run run = new Run();
    run.onKafka.add("m-phantom");
    run.inboxRows = 8;
    run.types.put(PHANTOM.toString(), List.of("OrderPlaced"));
    run.phantom = new Evidence.Phantom(PHANTOM, "m-phantom", 1);
    run.invoices.add(new Evidence.Invoice(PHANTOM, "F2026-C", null, "DRAFT"));

    assertOnlyBroken(
        run,
        Invariant.NO_PHANTOM_EVENT,
        "the rolled-back order "
            + PHANTOM
            + " has records on Kafka; the rolled-back order's message id m-phantom is on"
            + " Kafka; the rolled-back order's message id has 1 outbox rows; billing"
            + " holds 1 invoices for the rolled-back order");
  }

  @Test
  void orderPerAggregateBreaksWhenACancellationArrivedBeforeItsPlacement() {
    Run run = new Run();
    run.types.put(O2.toString(), List.of("OrderCancelled", "OrderPlaced"));

    assertOnlyBroken(
        run,
        Invariant.ORDER_PER_AGGREGATE,
        "1 cancelled orders without OrderPlaced before OrderCancelled on Kafka: order "
            + O2
            + " [OrderCancelled, OrderPlaced]");
  }

  @Test
  void effectivelyOnceBreaksOnASecondInboxRowAMismatchedRetryOrASkipTooFew() {
    Run run = new Run();
    run.inboxRows = 8;
    run.idempotentMismatches = 2;
    run.duplicatesSkipped = 0;

    assertOnlyBroken(
        run,
        Invariant.EFFECTIVELY_ONCE,
        "billing's inbox holds 8 rows for 7 distinct message ids on the topics; 2"
            + " idempotent retries answered another order; billing's inboxes skipped 0"
            + " deliveries, fewer than the 1 redelivered");
  }

  @Test
  void anOrderWithoutItsInvoiceBreaksEffectivelyOnceAndOneInvoicePerOrder() {
    Run run = new Run();
    run.invoices.removeIf(i -> i.orderId().equals(O3));
    run.nextNumbers.remove("F2026-B");
    run.held.remove(new InvoiceNumber("F2026-B", 1));

    assertThat(InvariantChecks.check(run.evidence()))
        .isEqualTo(
            allHeldBut(
                Invariant.EFFECTIVELY_ONCE,
                "2 invoices for 3 orders",
                Invariant.ONE_INVOICE_ONE_CHARGE_PER_ORDER,
                "1 orders without exactly one invoice: order " + O3 + " has 0"));
  }

  @Test
  void oneChargePerOrderBreaksOnASecondChargeOrAnOutOfOrderOrderCharged() {
    Run run = new Run();
    run.charges.put(O3, List.of("ch-3", "ch-3b"));
    run.charges.put(OUT_OF_ORDER, List.of("ch-4"));

    assertOnlyBroken(
        run,
        Invariant.ONE_INVOICE_ONE_CHARGE_PER_ORDER,
        "1 orders whose charges at the gateway disagree with their payment: order "
            + O3
            + ": payment CAPTURED (attempts 1, refund requested false, updated"
            + " 2026-01-01T00:00:00Z), gateway holds 2 charge(s) [ch-3, ch-3b], not"
            + " cancelled by the demo; 1 orders cancelled before they were placed kept a"
            + " number or a charge: order "
            + OUT_OF_ORDER
            + ": invoice CANCELLED number null, payment CANCELLED, gateway holds 1"
            + " charge(s)");
  }

  @Test
  void gaplessUniqueNumbersBreaksOnAGapANumberOfferedTwiceAndANumberVoidedTooEarly() {
    Run run = new Run();
    // F2026-B: the counter handed out 1 and 2, only 2 is held
    run.invoices.set(2, new Evidence.Invoice(O3, "F2026-B", 2L, "ISSUED"));
    run.nextNumbers.put("F2026-B", 3L);
    run.held.remove(new InvoiceNumber("F2026-B", 1));
    run.held.put(new InvoiceNumber("F2026-B", 2), InvoiceNumbering.invoiceId(O3).toString());
    // F2026-A/2 voided here while the integrator holds it (a late accept voided too early)
    run.invoices.set(1, new Evidence.Invoice(O2, "F2026-A", 2L, "VOIDED"));
    run.duplicateAttempts = 1;

    assertOnlyBroken(
        run,
        Invariant.GAPLESS_UNIQUE_NUMBERS,
        "series F2026-B: 1..1 missing; 1 numbers offered to the integrator for a second"
            + " invoice; 1 numbers the integrator holds otherwise than billing: F2026-A/2"
            + " is VOIDED here, held there as "
            + InvoiceNumbering.invoiceId(O2));
  }

  @Test
  void gaplessUniqueNumbersBreaksOnANumberHandedOutAndNeverSettled() {
    Run run = new Run();
    run.nextNumbers.put("F2026-A", 5L);

    assertOnlyBroken(run, Invariant.GAPLESS_UNIQUE_NUMBERS, "series F2026-A: 3..4 missing");
  }

  @Test
  void noLockAcrossNetworkIoBreaksWhenNoTwoCallsOfASeriesEverOverlapped() {
    Run run = new Run();
    run.maxSameSeriesInFlight = 1;

    assertOnlyBroken(
        run,
        Invariant.NO_LOCK_ACROSS_NETWORK_IO,
        "at most 1 submission of one series was in flight at once: the calls never"
            + " overlapped");
  }

  @Test
  void theSeriesAuditCountsEveryInvoiceAndNamesTheHighestNumber() {
    assertThat(InvariantChecks.seriesAudits(new Run().evidence()))
        .containsExactly(
            new InvariantChecks.SeriesAudit("F2026-A", 3, 2, List.of(), List.of()),
            new InvariantChecks.SeriesAudit("F2026-B", 1, 1, List.of(), List.of()));
  }

  @Test
  void aReasonNamesThreeExamplesAndCountsTheRest() {
    assertThat(InvariantChecks.examples(List.of("a", "b", "c", "d", "e")))
        .isEqualTo("a | b | c and 2 more");
  }
}
