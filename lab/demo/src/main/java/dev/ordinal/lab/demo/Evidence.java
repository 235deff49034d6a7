package dev.ordinal.lab.demo;

import dev.ordinal.lab.sim.InvoiceNumber;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * What a run left behind, read once the drive has settled out of order-service's and billing's
 * tables, the order topics and the two simulators: the only input of {@link InvariantChecks}.
 * {@link EvidenceReader} reads it; tests build it by hand.
 *
 * @param orders the orders the driver placed, as order-service answered
 * @param cancelled the orders the driver cancelled through the API
 * @param cancelledBeforePlaced the orders whose cancellation was delivered before their placement
 *     (with {@code --chaos})
 * @param phantom the order whose transaction was rolled back
 * @param outboxIds the ids (message ids) of the outbox rows of {@code orders}
 * @param messageIdsOnKafka every distinct message id on the order topics since the run started,
 *     re-publications included
 * @param eventTypesByKey per record key (the order id), the event types in topic order, duplicates
 *     included: the arrival order of each aggregate
 * @param inboxRows billing's inbox rows for {@code messageIdsOnKafka}
 * @param duplicatesSkipped the deliveries billing's inboxes skipped (from each instance's metrics,
 *     killed ones included)
 * @param idempotentMismatches idempotent retries that answered another order than the first call
 * @param invoices every invoice in billing's schema
 * @param nextNumbers per series, the next number its counter hands out
 * @param payments per order ({@code orders} and {@code cancelledBeforePlaced}), its payment row
 * @param charges per order, the charges the payment gateway holds for it (absent: none)
 * @param integratorHeld every number the integrator accepted, with the invoice id it holds it for
 * @param topics what the topic observer counted
 * @param integrator what the integrator simulator counted
 */
record Evidence(
    List<UUID> orders,
    Set<UUID> cancelled,
    Set<UUID> cancelledBeforePlaced,
    Phantom phantom,
    List<String> outboxIds,
    Set<String> messageIdsOnKafka,
    Map<String, List<String>> eventTypesByKey,
    int inboxRows,
    long duplicatesSkipped,
    int idempotentMismatches,
    List<Invoice> invoices,
    Map<String, Long> nextNumbers,
    Map<UUID, Payment> payments,
    Map<UUID, List<String>> charges,
    Map<InvoiceNumber, String> integratorHeld,
    TopicCounts topics,
    IntegratorCounts integrator) {

  /**
   * The order placed in a transaction that rolled back.
   *
   * @param outboxRows outbox rows with its message id
   */
  record Phantom(UUID orderId, String messageId, int outboxRows) {}

  /** One invoice row: {@code number} is null while none is reserved. */
  record Invoice(UUID orderId, String series, Long number, String status) {}

  /** One payment row. */
  record Payment(String status, int attempts, boolean refundRequested, Instant updatedAt) {}

  /**
   * The topic observer's counts.
   *
   * @param records records read, duplicates included
   * @param relayedIds distinct message ids the relay wrote (the observer's own left out)
   * @param redelivered records produced again unchanged (same message id)
   * @param republished records produced again under a new message id
   * @param sendFailures injected duplicates the broker did not take (not counted above)
   */
  record TopicCounts(
      long records, int relayedIds, long redelivered, long republished, long sendFailures) {}

  /**
   * The integrator simulator's counts.
   *
   * @param duplicateAttempts numbers offered for a second, different invoice
   * @param maxSameSeriesInFlight the most submissions of one series in flight at one moment
   */
  record IntegratorCounts(
      int calls,
      int accepted,
      int transientFailures,
      int droppedAfterAccept,
      int lateAccepts,
      int duplicateAttempts,
      int maxSameSeriesInFlight) {}
}
