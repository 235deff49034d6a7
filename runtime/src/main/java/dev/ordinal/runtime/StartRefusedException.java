package dev.ordinal.runtime;

/**
 * A service refuses to start (or to go on) because of what it found, not because of a setting: the
 * message is one sentence saying what happened and the command that recovers; the process exits
 * with {@link #exitStatus()}.
 */
public class StartRefusedException extends OrdinalException {

  public StartRefusedException(String message, int exitStatus) {
    super(message, exitStatus);
  }
}
