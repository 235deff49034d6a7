package dev.ordinal.lab.demo;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.INVOICE_SERIES;
import static dev.ordinal.billing.db.Tables.PAYMENT;
import static dev.ordinal.messaging.db.Tables.INBOX;
import static dev.ordinal.messaging.db.Tables.OUTBOX;

import dev.ordinal.billing.BillingService;
import dev.ordinal.billing.InvoiceStatus;
import dev.ordinal.billing.PaymentStatus;
import dev.ordinal.lab.sim.Charge;
import dev.ordinal.lab.sim.IntegratorFault;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.PaymentGatewaySimulator;
import dev.ordinal.order.PlacedOrder;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.HdrHistogram.Histogram;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * Reads what a run left behind out of order-service's and billing's tables, the topic observer and
 * the simulators: the {@link Evidence} the invariants are judged on, whether the run has settled,
 * and the latencies of the summary. All the SQL of the demo's checks is here.
 */
record EvidenceReader(
    DSLContext orderDb,
    DSLContext billingDb,
    IntegratorSimulator integrator,
    PaymentGatewaySimulator gateway,
    TopicObserver observer) {

  /**
   * What the driver did that the evidence names: the orders it placed (as order-service answered),
   * the ones it cancelled, the ones cancelled before their placement, the rolled-back one, and its
   * idempotent retries that answered another order.
   */
  record Driven(
      Collection<UUID> orders,
      Set<UUID> cancelled,
      Set<UUID> cancelledBeforePlaced,
      PlacedOrder phantom,
      int idempotentMismatches) {}

  /** The evidence, once the run has settled; {@code duplicatesSkipped} as billing counted them. */
  Evidence read(Driven d, long duplicatesSkipped) {
    List<UUID> orders = List.copyOf(d.orders());
    Set<String> onKafka = observer.messageIds();
    List<String> outboxIds =
        orderDb
            .select(OUTBOX.ID)
            .from(OUTBOX)
            .where(OUTBOX.AGGREGATE_ID.in(orders.stream().map(UUID::toString).toList()))
            .fetch(r -> r.value1().toString());
    Evidence.Phantom phantom =
        new Evidence.Phantom(
            d.phantom().orderId(),
            d.phantom().messageId().toString(),
            orderDb.fetchCount(OUTBOX, OUTBOX.ID.eq(d.phantom().messageId())));
    Set<UUID> billed = new LinkedHashSet<>(orders);
    billed.addAll(d.cancelledBeforePlaced());
    // the counters before the invoices: every number below a counter was committed with it
    Map<String, Long> nextNumbers = new HashMap<>();
    billingDb
        .select(INVOICE_SERIES.SERIES, INVOICE_SERIES.NEXT_NO)
        .from(INVOICE_SERIES)
        .forEach(r -> nextNumbers.put(r.value1(), r.value2()));
    return new Evidence(
        orders,
        Set.copyOf(d.cancelled()),
        Set.copyOf(d.cancelledBeforePlaced()),
        phantom,
        outboxIds,
        onKafka,
        observer.typesByKey(),
        inboxRowsOf(onKafka),
        duplicatesSkipped,
        d.idempotentMismatches(),
        invoices(),
        nextNumbers,
        payments(billed),
        charges(billed),
        integrator.accepted(),
        new Evidence.TopicCounts(
            observer.records(),
            observer.relayedIds(),
            observer.redelivered(),
            observer.republished(),
            observer.sendFailures()),
        new Evidence.IntegratorCounts(
            integrator.calls(),
            integrator.acceptedCount(),
            integrator.injected(IntegratorFault.TRANSIENT_FAILURE),
            integrator.injected(IntegratorFault.DROPPED_AFTER_ACCEPT),
            integrator.injected(IntegratorFault.LATE_ACCEPT),
            integrator.duplicateAttempts(),
            integrator.maxSameSeriesInFlight()));
  }

  private List<Evidence.Invoice> invoices() {
    return billingDb
        .select(INVOICE.ORDER_ID, INVOICE.SERIES, INVOICE.NUMBER, INVOICE.STATUS)
        .from(INVOICE)
        .fetch(r -> new Evidence.Invoice(r.value1(), r.value2(), r.value3(), r.value4()));
  }

  private Map<UUID, Evidence.Payment> payments(Collection<UUID> orders) {
    Map<UUID, Evidence.Payment> payments = new HashMap<>();
    billingDb
        .select(
            PAYMENT.ORDER_ID,
            PAYMENT.STATUS,
            PAYMENT.ATTEMPTS,
            PAYMENT.REFUND_REQUESTED,
            PAYMENT.UPDATED_AT)
        .from(PAYMENT)
        .where(PAYMENT.ORDER_ID.in(orders))
        .forEach(
            r ->
                payments.put(
                    r.value1(),
                    new Evidence.Payment(
                        r.value2(),
                        r.value3(),
                        Boolean.TRUE.equals(r.value4()),
                        r.value5() == null ? null : r.value5().toInstant())));
    return payments;
  }

  private Map<UUID, List<String>> charges(Collection<UUID> orders) {
    Map<UUID, List<String>> charges = new HashMap<>();
    for (UUID id : orders) {
      List<Charge> held = gateway.chargesFor(id.toString());
      if (!held.isEmpty()) {
        charges.put(id, held.stream().map(Charge::toString).toList());
      }
    }
    return charges;
  }

  private int inboxRowsOf(Collection<String> messageIds) {
    if (messageIds.isEmpty()) {
      return 0;
    }
    return billingDb.fetchCount(
        INBOX,
        INBOX.CONSUMER.eq(BillingService.CONSUMER_NAME).and(INBOX.MESSAGE_ID.in(messageIds)));
  }

  // ---------------------------------------------------------------- while the run settles

  /** Invoices of {@code orders} that are ISSUED, for the live line. */
  int issued(Collection<UUID> orders) {
    return orders.isEmpty() ? 0 : count(orders, INVOICE.STATUS.eq(InvoiceStatus.ISSUED.name()));
  }

  /**
   * What is still open after the drive. Settled when every placed order's message id is on Kafka,
   * has its invoice out of DRAFT and SENDING, its payment settled, every cancellation applied and
   * the consumer lag at 0.
   */
  record Backlog(
      long unrelayed,
      int invoices,
      int orders,
      int unsettledInvoices,
      int openPayments,
      int cancellationsApplied,
      int cancellations,
      int outOfOrderSettled,
      int outOfOrder,
      long consumerLag) {
    boolean settled() {
      return unrelayed == 0
          && invoices == orders
          && unsettledInvoices == 0
          && openPayments == 0
          && cancellationsApplied == cancellations
          && outOfOrderSettled == outOfOrder
          && consumerLag == 0;
    }

    @Override
    public String toString() {
      return String.format(
          " | unrelayed %d, invoices %d/%d, unsettled invoices %d, open payments %d,"
              + " cancellations applied %d/%d",
          unrelayed,
          invoices,
          orders,
          unsettledInvoices,
          openPayments,
          cancellationsApplied,
          cancellations);
    }
  }

  /** The backlog of the orders placed ({@code messageIds}: by order, its message id). */
  Backlog backlog(
      Map<UUID, String> messageIds,
      Set<UUID> cancelled,
      Set<UUID> cancelledBeforePlaced,
      long consumerLag) {
    Set<UUID> ids = messageIds.keySet();
    if (ids.isEmpty()) {
      return new Backlog(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    }
    Set<String> seen = observer.messageIds();
    long unrelayed = messageIds.values().stream().filter(m -> !seen.contains(m)).count();
    Condition open =
        PAYMENT
            .STATUS
            .eq(PaymentStatus.PENDING.name())
            .or(
                PAYMENT
                    .STATUS
                    .eq(PaymentStatus.CAPTURED.name())
                    .and(PAYMENT.REFUND_REQUESTED.isTrue()));
    return new Backlog(
        unrelayed,
        count(ids, DSL.noCondition()),
        ids.size(),
        count(ids, INVOICE.STATUS.in(InvoiceStatus.DRAFT.name(), InvoiceStatus.SENDING.name())),
        billingDb.fetchCount(PAYMENT, PAYMENT.ORDER_ID.in(ids).and(open)),
        cancelled.isEmpty()
            ? 0
            : billingDb.fetchCount(
                PAYMENT, PAYMENT.ORDER_ID.in(cancelled).and(PAYMENT.REFUND_REQUESTED.isTrue())),
        cancelled.size(),
        cancelledBeforePlaced.isEmpty()
            ? 0
            : billingDb.fetchCount(
                PAYMENT,
                PAYMENT
                    .ORDER_ID
                    .in(cancelledBeforePlaced)
                    .and(PAYMENT.STATUS.eq(PaymentStatus.CANCELLED.name()))),
        cancelledBeforePlaced.size(),
        consumerLag);
  }

  private int count(Collection<UUID> ids, Condition more) {
    return billingDb.fetchCount(INVOICE, INVOICE.ORDER_ID.in(ids).and(more));
  }

  // ---------------------------------------------------------------- latencies

  /** An order as the driver placed it: when order-service committed it, and in which lane. */
  record Committed(String messageId, Instant at, boolean bulk) {}

  /**
   * Per lane (interactive, bulk), order commit ({@code createdAt} as order-service answered) to
   * inbox row applied ({@code processed_at}) and to invoice issued ({@code issued_at}).
   */
  DemoSummary.Lanes[] latencies(Map<UUID, Committed> placed) {
    Histogram[] toIssued = {histogram(), histogram()};
    if (!placed.isEmpty()) {
      billingDb
          .select(INVOICE.ORDER_ID, INVOICE.ISSUED_AT)
          .from(INVOICE)
          .where(INVOICE.ORDER_ID.in(placed.keySet()))
          .and(INVOICE.ISSUED_AT.isNotNull())
          .forEach(r -> record(toIssued, placed.get(r.value1()), r.value2().toInstant()));
    }
    Map<String, Committed> byMessageId = new HashMap<>();
    placed.values().forEach(p -> byMessageId.put(p.messageId(), p));
    Histogram[] toApplied = {histogram(), histogram()};
    if (!byMessageId.isEmpty()) {
      billingDb
          .select(INBOX.MESSAGE_ID, INBOX.PROCESSED_AT)
          .from(INBOX)
          .where(INBOX.CONSUMER.eq(BillingService.CONSUMER_NAME))
          .and(INBOX.MESSAGE_ID.in(byMessageId.keySet()))
          .forEach(r -> record(toApplied, byMessageId.get(r.value1()), r.value2().toInstant()));
    }
    return new DemoSummary.Lanes[] {lanes(toApplied), lanes(toIssued)};
  }

  private static Histogram histogram() {
    return new Histogram(3_600_000L, 3);
  }

  private static DemoSummary.Lanes lanes(Histogram[] h) {
    return new DemoSummary.Lanes(DemoSummary.Latency.of(h[0]), DemoSummary.Latency.of(h[1]));
  }

  private static void record(Histogram[] byLane, Committed p, Instant to) {
    Histogram h = byLane[p.bulk() ? 1 : 0];
    h.recordValue(
        Math.max(
            0, Math.min(h.getHighestTrackableValue(), Duration.between(p.at(), to).toMillis())));
  }
}
