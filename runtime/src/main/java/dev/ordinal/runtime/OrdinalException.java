package dev.ordinal.runtime;

/**
 * The root of every exception Ordinal throws on purpose. Its message is one sentence for a person
 * (never a password); {@link #exitStatus()} is what a command ends with when it reaches the top: 2
 * when the input or the configuration must change (nothing was done), 1 when something failed on
 * the way, 0 when a stop that was asked for ended the work. The command line maps it in one place.
 */
public class OrdinalException extends RuntimeException {
  /** Bad input or configuration: fix it and run again; nothing was done. */
  public static final int REFUSED = 2;

  /** A failure on the way; the log has the details. */
  public static final int FAILED = 1;

  private final int exitStatus;

  public OrdinalException(String message, int exitStatus) {
    super(message);
    this.exitStatus = exitStatus;
  }

  public OrdinalException(String message, Throwable cause, int exitStatus) {
    super(message, cause);
    this.exitStatus = exitStatus;
  }

  /** The exit status of a command this ends. */
  public int exitStatus() {
    return exitStatus;
  }
}
