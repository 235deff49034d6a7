package dev.ordinal.lab.numbering;

/**
 * The lab could not run: a simulator did not answer, the schema is not the lab's own, or a strategy
 * did not finish in time. The message says what to change; nothing is retried.
 */
public final class LabException extends RuntimeException {
  public LabException(String message, Throwable cause) {
    super(message, cause);
  }
}
