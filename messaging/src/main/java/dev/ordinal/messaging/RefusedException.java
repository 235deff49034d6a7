package dev.ordinal.messaging;

/**
 * An operator's request was not carried out, because it names something that does not exist (a
 * consumer group, a topic, a partition) or because doing it now could do harm (a consumer group
 * with active members, an offset outside the log). Nothing was changed. The message is one sentence
 * saying what is wrong and, where it helps, the values to choose from; fix the request or the
 * situation and ask again.
 */
public class RefusedException extends MessagingException {
  public RefusedException(String message) {
    super(message, REFUSED);
  }

  public RefusedException(String message, Throwable cause) {
    super(message, cause, REFUSED);
  }
}
