package dev.ordinal.lab.demo;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordinal.billing.InvoiceStatus;
import dev.ordinal.billing.PaymentStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.HdrHistogram.Histogram;

/**
 * Every figure of the demo's summary, in one record: {@link #text()} and {@link #json()} are two
 * renderings of it. The JSON is this record as Jackson writes it, component by component (the
 * groups unwrapped into one flat object), so text and JSON are drawn from the same figures and
 * cannot list different ones; {@link #exitStatus()} follows from the verdicts. {@link #of} computes
 * it from the evidence, the verdicts and what the driver did.
 *
 * <p>Counts are of the run's orders unless said: {@code charges} those captured or refunded, {@code
 * gatewayCharges} the charges the gateway holds for them, {@code neverCharged} the payments
 * cancelled before a charge. {@code notSettled} is null when everything settled within the timeout,
 * else what was still open; {@code broken} maps each broken invariant to its reason.
 */
record DemoSummary(
    @JsonUnwrapped Placing placing,
    @JsonUnwrapped Messages messages,
    @JsonUnwrapped Billing billing,
    @JsonUnwrapped Integrator integrator,
    @JsonUnwrapped Injected injected,
    @JsonUnwrapped Pace pace,
    boolean settled,
    String notSettled,
    Map<String, Series> series,
    Lanes commitToAppliedMs,
    Lanes commitToIssuedMs,
    Map<String, Boolean> invariants,
    Map<String, String> broken,
    String logs,
    boolean ok) {

  private static final ObjectMapper JSON = new ObjectMapper();

  DemoSummary {
    series = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(series));
    invariants = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(invariants));
    broken = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(broken));
  }

  /** The orders the driver placed, retried and cancelled. */
  record Placing(
      int orders,
      int interactiveOrders,
      int bulkOrders,
      int failedRequests,
      int cancelled,
      int idempotentRetries,
      int idempotentMismatches,
      int idempotentRetriesFailed) {}

  /** The run's events from the outbox to billing's inbox, and the duplicates injected. */
  record Messages(
      int outboxRows,
      int outboxMissing,
      int relayed,
      long records,
      long redelivered,
      long republished,
      long duplicatesNotSent,
      long duplicatesSkipped,
      int distinctMessageIds,
      int inboxRows) {}

  /** The run's invoices and payments. */
  record Billing(
      int invoices,
      int issued,
      int invoicesCancelled,
      int invoicesVoided,
      int charges,
      int gatewayCharges,
      int refunded,
      int neverCharged) {}

  /** What the integrator simulator saw. */
  record Integrator(
      int integratorCalls,
      int integratorAccepted,
      int integratorTransientFailures,
      int integratorDroppedAfterAccept,
      int integratorDuplicateAttempts,
      int lateAccepts,
      int integratorDisagrees,
      int maxSameSeriesInFlight) {}

  /**
   * The faults injected: with {@code chaos} also the cancellations delivered before their orders.
   */
  record Injected(
      boolean chaos,
      int cancelledBeforePlaced,
      int cancelledBeforePlacedBroken,
      int relayKills,
      int billingKills,
      List<Fault> faults) {
    Injected {
      faults = List.copyOf(faults);
    }
  }

  /**
   * How hard the driver pushed.
   *
   * @param notAttempted interactive orders skipped because {@code maxInFlight} requests were busy
   * @param offeredRate interactive orders offered per second; 0 for one at a time
   */
  record Pace(int notAttempted, int maxInFlight, int offeredRate, long driveSeconds) {}

  /**
   * One fault as it happened.
   *
   * @param kind the {@link FaultInjector.Kind}'s name
   * @param description what was done, as the text names it
   * @param detail which process was killed, how many backends were terminated; empty otherwise
   * @param outageMs how long the server (or the process) was away
   * @param allReadyAfterMs from its return to every service ready, -1 when one was not
   */
  record Fault(
      String kind,
      String description,
      String detail,
      long outageMs,
      long allReadyAfterMs,
      List<Service> services) {}

  /**
   * One service around one fault ({@link FaultInjector.ServiceOutcome}).
   *
   * @param restarts per loop, how much its restart count rose; null when unknown (no /metrics)
   */
  record Service(
      String name,
      boolean dependent,
      boolean alive,
      boolean wentUnready,
      long readyAfterMs,
      Map<String, Double> restarts) {}

  /** One series as the gap audit saw it. */
  record Series(int invoices, long highest, boolean clean, int gaps, int duplicates) {}

  /** Latency per lane. */
  record Lanes(Latency interactive, Latency bulk) {}

  /** Percentiles in milliseconds, all 0 without samples. */
  record Latency(long count, long p50, long p99, long max) {
    static Latency of(Histogram h) {
      long n = h.getTotalCount();
      return n == 0
          ? new Latency(0, 0, 0, 0)
          : new Latency(n, h.getValueAtPercentile(50), h.getValueAtPercentile(99), h.getMaxValue());
    }
  }

  /** What the driver and the fault plan did, beside what the evidence holds. */
  record Run(
      int bulkOrders,
      int failedRequests,
      int idempotentRetries,
      int idempotentRetriesFailed,
      int notAttempted,
      int maxInFlight,
      int offeredRate,
      long driveSeconds,
      boolean chaos,
      List<FaultInjector.Outcome> faults) {}

  /**
   * The summary of a run.
   *
   * @param notSettled null when everything settled in time, else what was still open
   * @param logs where the services' logs are
   */
  static DemoSummary of(
      Evidence e,
      Map<Invariant, Verdict> verdicts,
      Run run,
      Lanes applied,
      Lanes issued,
      String notSettled,
      String logs) {
    Map<String, Boolean> held = new LinkedHashMap<>();
    Map<String, String> broken = new LinkedHashMap<>();
    verdicts.forEach(
        (i, v) -> {
          held.put(i.key(), v.held());
          if (!v.held()) {
            broken.put(i.key(), v.reason());
          }
        });
    boolean allHeld = held.size() == Invariant.values().length && !held.containsValue(false);
    Map<String, Series> series = new LinkedHashMap<>();
    for (InvariantChecks.SeriesAudit a : InvariantChecks.seriesAudits(e)) {
      series.put(
          a.series(),
          new Series(a.invoices(), a.highest(), a.clean(), a.gaps().size(), a.duplicates().size()));
    }
    return new DemoSummary(
        placing(e, run),
        messages(e),
        billing(e),
        integrator(e),
        injected(e, run),
        new Pace(run.notAttempted(), run.maxInFlight(), run.offeredRate(), run.driveSeconds()),
        notSettled == null,
        notSettled,
        series,
        applied,
        issued,
        held,
        broken,
        logs,
        notSettled == null && allHeld);
  }

  private static Placing placing(Evidence e, Run run) {
    int orders = e.orders().size();
    return new Placing(
        orders,
        orders - run.bulkOrders(),
        run.bulkOrders(),
        run.failedRequests(),
        e.cancelled().size(),
        run.idempotentRetries(),
        e.idempotentMismatches(),
        run.idempotentRetriesFailed());
  }

  private static Messages messages(Evidence e) {
    Evidence.TopicCounts t = e.topics();
    return new Messages(
        e.outboxIds().size(),
        (int) e.outboxIds().stream().filter(id -> !e.messageIdsOnKafka().contains(id)).count(),
        t.relayedIds(),
        t.records(),
        t.redelivered(),
        t.republished(),
        t.sendFailures(),
        e.duplicatesSkipped(),
        e.messageIdsOnKafka().size(),
        e.inboxRows());
  }

  private static Billing billing(Evidence e) {
    Set<UUID> orders = new HashSet<>(e.orders());
    Map<String, Integer> invoices = new HashMap<>();
    e.invoices().stream()
        .filter(i -> orders.contains(i.orderId()))
        .forEach(i -> invoices.merge(i.status(), 1, Integer::sum));
    Map<String, Integer> payments = new HashMap<>();
    int gatewayCharges = 0;
    for (UUID id : e.orders()) {
      Evidence.Payment p = e.payments().get(id);
      if (p != null) {
        payments.merge(p.status(), 1, Integer::sum);
      }
      gatewayCharges += e.charges().getOrDefault(id, List.of()).size();
    }
    int refunded = payments.getOrDefault(PaymentStatus.REFUNDED.name(), 0);
    return new Billing(
        invoices.values().stream().mapToInt(Integer::intValue).sum(),
        invoices.getOrDefault(InvoiceStatus.ISSUED.name(), 0),
        invoices.getOrDefault(InvoiceStatus.CANCELLED.name(), 0),
        invoices.getOrDefault(InvoiceStatus.VOIDED.name(), 0),
        payments.getOrDefault(PaymentStatus.CAPTURED.name(), 0) + refunded,
        gatewayCharges,
        refunded,
        payments.getOrDefault(PaymentStatus.CANCELLED.name(), 0));
  }

  private static Integrator integrator(Evidence e) {
    Evidence.IntegratorCounts c = e.integrator();
    return new Integrator(
        c.calls(),
        c.accepted(),
        c.transientFailures(),
        c.droppedAfterAccept(),
        c.duplicateAttempts(),
        c.lateAccepts(),
        InvariantChecks.integratorDisagreements(e).size(),
        c.maxSameSeriesInFlight());
  }

  private static Injected injected(Evidence e, Run run) {
    List<Fault> faults = new ArrayList<>();
    for (FaultInjector.Outcome o : run.faults()) {
      List<Service> services = new ArrayList<>();
      for (FaultInjector.ServiceOutcome so : o.services()) {
        services.add(
            new Service(
                so.service(),
                so.dependent(),
                so.alive(),
                so.wentUnready(),
                so.readyAfterMs(),
                so.restarts()));
      }
      faults.add(
          new Fault(
              o.fault().kind().name(),
              FaultPlan.describe(o.fault()),
              o.detail(),
              o.outageMs(),
              o.allReadyAfterMs(),
              services));
    }
    return new Injected(
        run.chaos(),
        e.cancelledBeforePlaced().size(),
        InvariantChecks.outOfOrderProblems(e).size(),
        kills(run, FaultInjector.Kind.KILL_RELAY),
        kills(run, FaultInjector.Kind.KILL_BILLING),
        faults);
  }

  private static int kills(Run run, FaultInjector.Kind kind) {
    return (int) run.faults().stream().filter(o -> o.fault().kind() == kind).count();
  }

  /** The JSON object, on one line. */
  String json() {
    try {
      return JSON.writeValueAsString(this);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the summary could not be written as JSON", e);
    }
  }

  /** 0 when everything settled and every invariant held, 1 otherwise. */
  int exitStatus() {
    return ok ? 0 : 1;
  }

  /** The text, from "Summary" to the closing OK or FAILED line. */
  String text() {
    return SummaryText.of(this);
  }
}
