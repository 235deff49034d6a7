package dev.ordinal.relay;

import java.util.UUID;

/**
 * An outbox row Kafka refuses for good (larger than the producer may send, a topic that is invalid
 * or not allowed): the relay stops before it, so no later event of the outbox — of its aggregate or
 * any other — is published ahead of it. The message is one sentence naming the row, its aggregate,
 * the reason and the two ways on: raise the limit, or restart the relay with {@code --skip-event}.
 */
public final class PoisonRowException extends RelayException {
  private final UUID eventId;

  public PoisonRowException(UUID eventId, String message, Throwable cause) {
    super(message, cause);
    this.eventId = eventId;
  }

  /** The outbox row's id, which is the event's message id. */
  public UUID eventId() {
    return eventId;
  }
}
