package dev.ordinal.lab.sim;

/**
 * A simulator cannot start (its port cannot be bound). The message is one sentence naming the port
 * and what to choose instead.
 */
public class SimulatorException extends dev.ordinal.runtime.OrdinalException {
  public SimulatorException(String message, Throwable cause) {
    super(message, cause, REFUSED);
  }
}
