package dev.ordinal.messaging.inbox;

import dev.ordinal.messaging.MessagingException;

/**
 * A record that can never be applied as it is (no message id, unparseable payload, unknown event
 * type). Retrying does not help; the consumer skips it and counts it.
 */
public class PoisonMessageException extends MessagingException {
  public PoisonMessageException(String message) {
    super(message);
  }

  public PoisonMessageException(String message, Throwable cause) {
    super(message, cause);
  }
}
