package dev.ordinal.messaging;

import dev.ordinal.runtime.OrdinalException;

/**
 * Root of the messaging library's exceptions: a failure on the way (exit status 1) unless a subtype
 * says otherwise.
 */
public class MessagingException extends OrdinalException {
  public MessagingException(String message) {
    super(message, FAILED);
  }

  protected MessagingException(String message, int exitStatus) {
    super(message, exitStatus);
  }

  protected MessagingException(String message, Throwable cause, int exitStatus) {
    super(message, cause, exitStatus);
  }

  public MessagingException(String message, Throwable cause) {
    super(message, cause, FAILED);
  }
}
