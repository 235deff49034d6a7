package dev.ordinal.messaging.outbox;

import dev.ordinal.messaging.MessagingException;

/**
 * An event larger than the relay can publish: refused before it is written, so the business
 * transaction it belongs to rolls back instead of leaving a row that would stop the relay.
 */
public final class EventTooLargeException extends MessagingException {
  public EventTooLargeException(String message) {
    super(message);
  }
}
