package dev.ordinal.billing;

import java.util.Set;

/**
 * The life of a payment (one per order, charged with the order id as idempotency key) and the
 * transitions it allows. Every status write of a payment is in {@link PaymentLifecycle}, which
 * refuses to build a transition this enum does not allow; each is a guarded SQL update ({@code
 * WHERE status = <from>}), so a late or repeated step never moves a payment backwards.
 *
 * <pre>
 * order placed --> PENDING --charged, or found by look-up--> CAPTURED --refunded--> REFUNDED
 *                  |  |                                       ^    \
 *                  |  \--declined 3 times--> FAILED           |     \--refund refused 3 times-->
 *                  |                                          |          REFUND_FAILED
 *                  \--cancelled, never charged--> CANCELLED --/ a charge lands after all
 *                                                  ^            (recorded, then refunded)
 * order placed after its cancellation -------------/
 * </pre>
 *
 * <p>{@code REFUNDED}, {@code FAILED} and {@code REFUND_FAILED} are final ({@code REFUND_FAILED} is
 * an operator's case). {@code CANCELLED} is final unless a charge sent before the cancellation
 * lands after a stale "never charged" decision: the money was taken, so the capture is recorded
 * and, the refund being requested, refunded.
 */
public enum PaymentStatus {
  /** Waiting to be charged. */
  PENDING,
  /** Charged; refunded next if its order was cancelled. */
  CAPTURED,
  /** Its order was cancelled before it was charged: never charged. */
  CANCELLED,
  /** Charged, then refunded at the gateway. */
  REFUNDED,
  /** The charge was refused for good ({@link PaymentCollector#MAX_PERMANENT} declines). */
  FAILED,
  /** The refund was refused for good: an operator's case. */
  REFUND_FAILED;

  /** The states a payment in this one may move to; empty for a final state. */
  public Set<PaymentStatus> next() {
    return switch (this) {
      case PENDING -> Set.of(CAPTURED, CANCELLED, FAILED);
      case CAPTURED -> Set.of(REFUNDED, REFUND_FAILED);
      case CANCELLED -> Set.of(CAPTURED);
      case REFUNDED, FAILED, REFUND_FAILED -> Set.of();
    };
  }

  /** Whether a payment may move from {@code from} to {@code to} (staying put is no transition). */
  public static boolean isValidTransition(PaymentStatus from, PaymentStatus to) {
    return from.next().contains(to);
  }

  /** The states a payment is created in: {@code CANCELLED} when its order was cancelled first. */
  public static Set<PaymentStatus> initial() {
    return Set.of(PENDING, CANCELLED);
  }
}
