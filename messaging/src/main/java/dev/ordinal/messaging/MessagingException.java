package dev.ordinal.messaging;

/** Root of the messaging library's exceptions. */
public class MessagingException extends RuntimeException {
  public MessagingException(String message) {
    super(message);
  }

  public MessagingException(String message, Throwable cause) {
    super(message, cause);
  }
}
