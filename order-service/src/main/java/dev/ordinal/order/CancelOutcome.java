package dev.ordinal.order;

import java.util.Optional;
import java.util.UUID;

/**
 * What a cancellation did.
 *
 * @param result whether the order changed and, if not, why
 * @param order the order after the attempt (empty when it does not exist)
 * @param messageId the {@code OrderCancelled} event's message id, when one was written
 */
public record CancelOutcome(Result result, Optional<OrderView> order, Optional<UUID> messageId) {
  public enum Result {
    CANCELLED,
    ALREADY_CANCELLED,
    ALREADY_SHIPPED,
    NOT_FOUND
  }
}
