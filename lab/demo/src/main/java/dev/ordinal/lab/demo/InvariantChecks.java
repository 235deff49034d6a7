package dev.ordinal.lab.demo;

import dev.ordinal.billing.GapAudit;
import dev.ordinal.billing.InvoiceNumbering;
import dev.ordinal.billing.InvoiceStatus;
import dev.ordinal.billing.PaymentStatus;
import dev.ordinal.contracts.EventType;
import dev.ordinal.lab.sim.InvoiceNumber;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The seven invariants of DESIGN.md judged on what a run left behind: a pure function of the {@link
 * Evidence}, with no server, no clock and no randomness, so each rule can be shown failing on
 * evidence built by hand ({@code InvariantChecksTest}). The demo, {@code DemoIT} and {@code
 * ServerFaultsIT} judge through it.
 */
final class InvariantChecks {
  /** How many offending items a reason names before it only counts the rest. */
  static final int EXAMPLES = 3;

  private static final Set<String> ACCOUNTED_FOR =
      Set.of(InvoiceStatus.ISSUED.name(), InvoiceStatus.ERROR.name(), InvoiceStatus.VOIDED.name());

  private InvariantChecks() {}

  /** One verdict per invariant, in DESIGN.md's order. */
  static Map<Invariant, Verdict> check(Evidence e) {
    Map<Invariant, Verdict> verdicts = new EnumMap<>(Invariant.class);
    verdicts.put(Invariant.NO_LOST_EVENT, noLostEvent(e));
    verdicts.put(Invariant.NO_PHANTOM_EVENT, noPhantomEvent(e));
    verdicts.put(Invariant.ORDER_PER_AGGREGATE, orderPerAggregate(e));
    verdicts.put(Invariant.EFFECTIVELY_ONCE, effectivelyOnce(e));
    verdicts.put(Invariant.ONE_INVOICE_ONE_CHARGE_PER_ORDER, oneInvoiceOneCharge(e));
    verdicts.put(Invariant.GAPLESS_UNIQUE_NUMBERS, gaplessUniqueNumbers(e));
    verdicts.put(Invariant.NO_LOCK_ACROSS_NETWORK_IO, noLockAcrossNetworkIo(e));
    return Collections.unmodifiableMap(verdicts);
  }

  /** 1: every outbox row of the run's orders (a placement each, a cancellation each) on Kafka. */
  static Verdict noLostEvent(Evidence e) {
    List<String> problems = new ArrayList<>();
    if (e.orders().isEmpty()) {
      problems.add("no order was placed");
    }
    List<String> missing =
        e.outboxIds().stream().filter(id -> !e.messageIdsOnKafka().contains(id)).toList();
    found(problems, missing, "of " + e.outboxIds().size() + " outbox rows not on Kafka");
    int expected = e.orders().size() + e.cancelled().size();
    if (e.outboxIds().size() != expected) {
      problems.add(
          e.outboxIds().size()
              + " outbox rows for "
              + e.orders().size()
              + " orders and "
              + e.cancelled().size()
              + " cancellations, not "
              + expected);
    }
    return Verdict.of(problems);
  }

  /** 2: the order whose transaction rolled back left nothing anywhere. */
  static Verdict noPhantomEvent(Evidence e) {
    Evidence.Phantom p = e.phantom();
    List<String> problems = new ArrayList<>();
    if (e.eventTypesByKey().containsKey(p.orderId().toString())) {
      problems.add("the rolled-back order " + p.orderId() + " has records on Kafka");
    }
    if (e.messageIdsOnKafka().contains(p.messageId())) {
      problems.add("the rolled-back order's message id " + p.messageId() + " is on Kafka");
    }
    if (p.outboxRows() > 0) {
      problems.add("the rolled-back order's message id has " + p.outboxRows() + " outbox rows");
    }
    long invoices = e.invoices().stream().filter(i -> i.orderId().equals(p.orderId())).count();
    if (invoices > 0) {
      problems.add("billing holds " + invoices + " invoices for the rolled-back order");
    }
    return Verdict.of(problems);
  }

  /** 3: every cancelled order's OrderPlaced came before its OrderCancelled, in topic order. */
  static Verdict orderPerAggregate(Evidence e) {
    List<String> outOfOrder = new ArrayList<>();
    for (UUID id : e.cancelled()) {
      List<String> types = e.eventTypesByKey().getOrDefault(id.toString(), List.of());
      int placed = types.indexOf(EventType.ORDER_PLACED.wireName());
      int cancelled = types.indexOf(EventType.ORDER_CANCELLED.wireName());
      if (placed < 0 || cancelled < 0 || placed > cancelled) {
        outOfOrder.add("order " + id + " " + types);
      }
    }
    if (outOfOrder.isEmpty()) {
      return Verdict.HELD;
    }
    Collections.sort(outOfOrder);
    return Verdict.broken(
        outOfOrder.size()
            + " cancelled orders without OrderPlaced before OrderCancelled on Kafka: "
            + examples(outOfOrder));
  }

  /** 4: one inbox row per distinct message id, one invoice per order, retries answered alike. */
  static Verdict effectivelyOnce(Evidence e) {
    List<String> problems = new ArrayList<>();
    if (e.inboxRows() != e.messageIdsOnKafka().size()) {
      problems.add(
          "billing's inbox holds "
              + e.inboxRows()
              + " rows for "
              + e.messageIdsOnKafka().size()
              + " distinct message ids on the topics");
    }
    long invoices = invoicesOfRun(e);
    if (invoices != e.orders().size()) {
      problems.add(invoices + " invoices for " + e.orders().size() + " orders");
    }
    if (e.idempotentMismatches() > 0) {
      problems.add(e.idempotentMismatches() + " idempotent retries answered another order");
    }
    if (e.duplicatesSkipped() < e.topics().redelivered()) {
      problems.add(
          "billing's inboxes skipped "
              + e.duplicatesSkipped()
              + " deliveries, fewer than the "
              + e.topics().redelivered()
              + " redelivered");
    }
    return Verdict.of(problems);
  }

  /** 5: one invoice per order; a charge at the gateway exactly when the payment says so. */
  static Verdict oneInvoiceOneCharge(Evidence e) {
    Map<UUID, Integer> invoicesPerOrder = new HashMap<>();
    e.invoices().forEach(i -> invoicesPerOrder.merge(i.orderId(), 1, Integer::sum));
    List<String> notOne = new ArrayList<>();
    for (UUID id : e.orders()) {
      int n = invoicesPerOrder.getOrDefault(id, 0);
      if (n != 1) {
        notOne.add("order " + id + " has " + n);
      }
    }
    List<String> problems = new ArrayList<>();
    found(problems, notOne, "orders without exactly one invoice");
    found(
        problems,
        chargeProblems(e),
        "orders whose charges at the gateway disagree with their payment");
    found(
        problems,
        outOfOrderProblems(e),
        "orders cancelled before they were placed kept a number or a charge");
    return Verdict.of(problems);
  }

  /** 6: every series numbered 1..N; the integrator holds exactly the numbers issued here. */
  static Verdict gaplessUniqueNumbers(Evidence e) {
    List<String> problems = new ArrayList<>();
    List<SeriesAudit> audits = seriesAudits(e);
    if (audits.isEmpty()) {
      problems.add("no invoice series to audit");
    }
    for (SeriesAudit a : audits) {
      if (!a.clean()) {
        problems.add("series " + a.series() + ": " + a.findings());
      }
    }
    if (e.integrator().duplicateAttempts() > 0) {
      problems.add(
          e.integrator().duplicateAttempts()
              + " numbers offered to the integrator for a second invoice");
    }
    List<String> unaccounted =
        e.invoices().stream()
            .filter(i -> i.number() != null && !ACCOUNTED_FOR.contains(i.status()))
            .map(i -> i.series() + "/" + i.number() + " " + i.status())
            .sorted()
            .toList();
    found(problems, unaccounted, "numbered invoices neither ISSUED, ERROR nor VOIDED");
    found(
        problems,
        integratorDisagreements(e),
        "numbers the integrator holds otherwise than billing");
    return Verdict.of(problems);
  }

  /** 7: two submissions of one series overlapped, which a lock across the call would forbid. */
  static Verdict noLockAcrossNetworkIo(Evidence e) {
    int max = e.integrator().maxSameSeriesInFlight();
    return max >= 2
        ? Verdict.HELD
        : Verdict.broken(
            "at most "
                + max
                + " submission of one series was in flight at once: the calls never overlapped");
  }

  // ------------------------------------------------------------- figures the summary shows too

  /** Invoices of the run's orders. */
  static long invoicesOfRun(Evidence e) {
    Set<UUID> orders = new HashSet<>(e.orders());
    return e.invoices().stream().filter(i -> orders.contains(i.orderId())).count();
  }

  /**
   * The run's orders whose charges at the gateway disagree with their payment: one charge if it was
   * captured or refunded, none otherwise, and no payment left FAILED or missing.
   */
  static List<String> chargeProblems(Evidence e) {
    List<String> problems = new ArrayList<>();
    for (UUID id : e.orders()) {
      Evidence.Payment p = e.payments().get(id);
      String status = p == null ? null : p.status();
      List<String> charges = e.charges().getOrDefault(id, List.of());
      boolean takes =
          PaymentStatus.CAPTURED.name().equals(status)
              || PaymentStatus.REFUNDED.name().equals(status);
      if (status == null
          || charges.size() != (takes ? 1 : 0)
          || PaymentStatus.FAILED.name().equals(status)) {
        problems.add(
            "order "
                + id
                + ": payment "
                + status
                + (p == null
                    ? ""
                    : " (attempts "
                        + p.attempts()
                        + ", refund requested "
                        + p.refundRequested()
                        + ", updated "
                        + p.updatedAt()
                        + ")")
                + ", gateway holds "
                + charges.size()
                + " charge(s) "
                + charges
                + (e.cancelled().contains(id)
                    ? ", cancelled by the demo"
                    : ", not cancelled by the demo"));
      }
    }
    Collections.sort(problems);
    return problems;
  }

  /**
   * The orders cancelled before they were placed that did not end as they must: invoice CANCELLED
   * without a number, payment CANCELLED, nothing at the gateway.
   */
  static List<String> outOfOrderProblems(Evidence e) {
    Map<UUID, Evidence.Invoice> invoices = new HashMap<>();
    e.invoices().forEach(i -> invoices.put(i.orderId(), i));
    List<String> problems = new ArrayList<>();
    for (UUID id : e.cancelledBeforePlaced()) {
      Evidence.Invoice inv = invoices.get(id);
      Evidence.Payment p = e.payments().get(id);
      String payment = p == null ? null : p.status();
      int charges = e.charges().getOrDefault(id, List.of()).size();
      if (inv == null
          || !InvoiceStatus.CANCELLED.name().equals(inv.status())
          || inv.number() != null
          || !PaymentStatus.CANCELLED.name().equals(payment)
          || charges > 0) {
        problems.add(
            "order "
                + id
                + ": invoice "
                + (inv == null ? "missing" : inv.status() + " number " + inv.number())
                + ", payment "
                + payment
                + ", gateway holds "
                + charges
                + " charge(s)");
      }
    }
    Collections.sort(problems);
    return problems;
  }

  /**
   * The numbered invoices the integrator holds otherwise than billing: an ISSUED one it does not
   * hold under its invoice id, or a VOIDED or ERROR one it holds (a late accept voided too early).
   */
  static List<String> integratorDisagreements(Evidence e) {
    List<String> problems = new ArrayList<>();
    for (Evidence.Invoice i : e.invoices()) {
      if (i.number() == null) {
        continue;
      }
      String there = e.integratorHeld().get(new InvoiceNumber(i.series(), i.number()));
      boolean agrees =
          InvoiceStatus.ISSUED.name().equals(i.status())
              ? InvoiceNumbering.invoiceId(i.orderId()).toString().equals(there)
              : there == null;
      if (!agrees) {
        problems.add(
            i.series() + "/" + i.number() + " is " + i.status() + " here, held there as " + there);
      }
    }
    Collections.sort(problems);
    return problems;
  }

  /** A run of missing numbers, both ends included. */
  record Gap(long from, long to) {
    @Override
    public String toString() {
      return from + ".." + to;
    }
  }

  /**
   * One series as the gap audit sees it.
   *
   * @param invoices invoices of the series, numbered or not
   * @param highest the highest number an invoice holds (0 when none)
   * @param gaps numbers missing below it, and numbers the counter handed out beyond it
   * @param duplicates numbers held by more than one invoice
   */
  record SeriesAudit(
      String series, int invoices, long highest, List<Gap> gaps, List<Long> duplicates) {
    boolean clean() {
      return gaps.isEmpty() && duplicates.isEmpty();
    }

    String findings() {
      List<String> f = new ArrayList<>();
      gaps.forEach(g -> f.add(g + " missing"));
      duplicates.forEach(d -> f.add(d + " held by more than one invoice"));
      return String.join(", ", f);
    }
  }

  /**
   * Per series (by name), the gap audit of {@code GapAudit} on the evidence: the numbers are
   * exactly 1..N, and the counter hands out N + 1 next.
   */
  static List<SeriesAudit> seriesAudits(Evidence e) {
    Map<String, Integer> invoices = new TreeMap<>();
    Map<String, List<Long>> numbers = new HashMap<>();
    for (Evidence.Invoice i : e.invoices()) {
      invoices.merge(i.series(), 1, Integer::sum);
      if (i.number() != null) {
        numbers.computeIfAbsent(i.series(), s -> new ArrayList<>()).add(i.number());
      }
    }
    List<SeriesAudit> audits = new ArrayList<>();
    invoices.forEach(
        (series, count) ->
            audits.add(
                audit(
                    series,
                    count,
                    numbers.getOrDefault(series, List.of()),
                    e.nextNumbers().get(series))));
    return audits;
  }

  private static SeriesAudit audit(String series, int invoices, List<Long> held, Long next) {
    List<Long> numbers = new ArrayList<>(held);
    Collections.sort(numbers);
    GapAudit.Numbering n = GapAudit.numbering(numbers, next);
    List<Gap> gaps = n.gaps().stream().map(g -> new Gap(g[0], g[1])).toList();
    return new SeriesAudit(series, invoices, n.highest(), gaps, n.duplicates());
  }

  /**
   * Adds to {@code problems}, when {@code items} is not empty, their count, {@code what} they are
   * and the first examples.
   */
  private static void found(List<String> problems, List<String> items, String what) {
    if (!items.isEmpty()) {
      problems.add(items.size() + " " + what + ": " + examples(items));
    }
  }

  /** The first {@link #EXAMPLES} items, and how many more there are. */
  static String examples(List<String> items) {
    String shown = String.join(" | ", items.subList(0, Math.min(EXAMPLES, items.size())));
    return items.size() > EXAMPLES ? shown + " and " + (items.size() - EXAMPLES) + " more" : shown;
  }
}
