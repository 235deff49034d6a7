package dev.ordinal.relay;

import dev.ordinal.runtime.OrdinalException;

/**
 * The relay could not start or stopped on an error. The message is one sentence without any
 * password; nothing committed to the outbox is lost (it is re-read from the replication slot).
 */
public class RelayException extends OrdinalException {
  public RelayException(String message) {
    super(message, REFUSED);
  }

  public RelayException(String message, Throwable cause) {
    super(message, cause, REFUSED);
  }
}
