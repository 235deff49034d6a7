package dev.ordinal.lab.sim.internal;

/**
 * A request the simulator refuses; answered as {@code {"error":CODE,"detail":...}} with the given
 * status. Nothing is stored for it.
 */
public final class SimRequestException extends RuntimeException {
  private final int status;
  private final String error;

  public SimRequestException(int status, String error, String detail) {
    super(detail, null, false, false);
    this.status = status;
    this.error = error;
  }

  public static SimRequestException invalid(String detail) {
    return new SimRequestException(400, "INVALID", detail);
  }

  public int status() {
    return status;
  }

  public String error() {
    return error;
  }
}
