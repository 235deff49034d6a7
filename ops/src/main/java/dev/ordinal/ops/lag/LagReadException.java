package dev.ordinal.ops.lag;

import dev.ordinal.messaging.MessagingException;

/**
 * Retriable: Kafka did not answer a lag read in time, or answered with an error that may pass
 * (coordinator moving, broker restarting). The message is one sentence; read again later.
 */
public class LagReadException extends MessagingException {
  public LagReadException(String message, Throwable cause) {
    super(message, cause);
  }
}
