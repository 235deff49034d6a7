package dev.ordinal.runtime;

/**
 * A server a service needs does not answer (refused, timed out, starting up or shutting down). Not
 * a reason to exit: the service waits for it and its loops retry. Wrong configuration (a refused
 * login, a missing grant, a server setting) is reported with another exception and ends the start.
 */
public class ServerUnavailableException extends OrdinalException {
  public ServerUnavailableException(String message, Throwable cause) {
    super(message, cause, REFUSED);
  }

  public ServerUnavailableException(String message) {
    super(message, REFUSED);
  }
}
