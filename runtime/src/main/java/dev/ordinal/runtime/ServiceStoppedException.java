package dev.ordinal.runtime;

/** The service was asked to stop while it was starting (Ctrl-C while it waited for a server). */
public final class ServiceStoppedException extends OrdinalException {
  public ServiceStoppedException(String message) {
    super(message, 0);
  }
}
