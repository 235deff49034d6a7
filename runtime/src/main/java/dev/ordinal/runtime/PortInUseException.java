package dev.ordinal.runtime;

/** A port a service was told to listen on is taken; the message names the option to change. */
public final class PortInUseException extends OrdinalException {
  public PortInUseException(String message, Throwable cause) {
    super(message, cause, REFUSED);
  }
}
