package dev.ordinal.lab.devstack;

/**
 * The local stack could not start or stop. The message is one sentence that names what to fix (a
 * setting, a port, a missing Docker engine); it never contains a password.
 */
public class StackException extends dev.ordinal.runtime.OrdinalException {
  public StackException(String message) {
    super(message, REFUSED);
  }

  public StackException(String message, Throwable cause) {
    super(message, cause, REFUSED);
  }
}
