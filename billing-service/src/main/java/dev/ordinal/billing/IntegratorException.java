package dev.ordinal.billing;

/** Why an integrator call did not succeed; each kind says what billing does next. */
public abstract sealed class IntegratorException extends Exception
    permits IntegratorException.Transient,
        IntegratorException.Rejected,
        IntegratorException.OutcomeUnknown,
        IntegratorException.NumberTaken {

  protected IntegratorException(String message, Throwable cause) {
    super(message, cause);
  }

  /** Nothing was stored (5xx, connection refused, circuit open): retry the same number later. */
  public static final class Transient extends IntegratorException {
    public Transient(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Refused for good (validation): the invoice goes to ERROR and keeps its number. */
  public static final class Rejected extends IntegratorException {
    public Rejected(String message) {
      super(message, null);
    }
  }

  /** Sent, but no answer came back (timeout, dropped connection): look the number up. */
  public static final class OutcomeUnknown extends IntegratorException {
    public OutcomeUnknown(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** The integrator holds another invoice under this number. */
  public static final class NumberTaken extends IntegratorException {
    public NumberTaken(String message) {
      super(message, null);
    }
  }
}
