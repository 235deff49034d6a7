package dev.ordinal.lab.sim;

import dev.ordinal.lab.sim.internal.FaultChecks;
import java.time.Duration;

/**
 * How the simulated e-invoice integrator misbehaves, validated once. Each submission takes a
 * latency drawn uniformly from {@code [latencyMin, latencyMax]}, and one draw picks at most one
 * fault, so the rates are exclusive and add up to at most 1; the remainder is processed normally.
 *
 * <ul>
 *   <li>transient failure: {@code 503 {"error":"UNAVAILABLE"}} after the latency; nothing stored
 *   <li>rejection: {@code 422 {"error":"REJECTED"}} after the latency; nothing stored (a permanent
 *       refusal: resubmitting the same invoice is refused only if drawn again)
 *   <li>timeout: the request is held for {@link #timeout} (instead of the latency), then answered
 *       {@code 504 {"error":"TIMEOUT"}}; nothing stored. A client whose own timeout is shorter
 *       gives up first and sees its own timeout
 *   <li>dropped after accept: processed normally after the latency (stored, or counted as a
 *       duplicate), then the connection is closed without a response: the client sees an {@code
 *       IOException}, never a status, although the invoice is there
 *   <li>late accept: the request is held for {@link #timeout} like a timeout, then processed
 *       normally (stored, or counted as a duplicate) and answered. A client whose own timeout is
 *       shorter has given up by then: it saw a timeout, and the invoice is stored after it. A
 *       look-up during the hold finds nothing
 * </ul>
 *
 * @param latencyMin shortest latency, zero or more
 * @param latencyMax longest latency, at least {@code latencyMin}
 * @param transientFailureRate probability of a 503
 * @param rejectionRate probability of a 422
 * @param timeoutRate probability of a timeout
 * @param timeout how long a timed-out request is held before the 504; more than zero
 * @param droppedAfterAcceptRate probability of processing then dropping the connection
 * @param lateAcceptRate probability of storing the submission only after {@link #timeout}
 */
public record IntegratorFaults(
    Duration latencyMin,
    Duration latencyMax,
    double transientFailureRate,
    double rejectionRate,
    double timeoutRate,
    Duration timeout,
    double droppedAfterAcceptRate,
    double lateAcceptRate) {

  public static final Duration DEFAULT_LATENCY_MIN = Duration.ofMillis(200);
  public static final Duration DEFAULT_LATENCY_MAX = Duration.ofSeconds(2);

  /** Longer than any sensible client timeout, so by default clients give up before the 504. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  /**
   * Null durations take the {@code DEFAULT_} values.
   *
   * @throws IllegalArgumentException naming the setting to change
   */
  public IntegratorFaults {
    latencyMin = latencyMin == null ? DEFAULT_LATENCY_MIN : latencyMin;
    latencyMax = latencyMax == null ? DEFAULT_LATENCY_MAX : latencyMax;
    timeout = timeout == null ? DEFAULT_TIMEOUT : timeout;
    FaultChecks.latency(latencyMin, latencyMax);
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be above zero: " + timeout);
    }
    FaultChecks.rates(
        new String[] {
          "transientFailureRate",
          "rejectionRate",
          "timeoutRate",
          "droppedAfterAcceptRate",
          "lateAcceptRate"
        },
        transientFailureRate,
        rejectionRate,
        timeoutRate,
        droppedAfterAcceptRate,
        lateAcceptRate);
  }

  /** Default latency (200 ms to 2 s), no faults. */
  public static IntegratorFaults defaults() {
    return new IntegratorFaults(null, null, 0, 0, 0, null, 0, 0);
  }

  public IntegratorFaults withLatency(Duration min, Duration max) {
    return new IntegratorFaults(
        min,
        max,
        transientFailureRate,
        rejectionRate,
        timeoutRate,
        timeout,
        droppedAfterAcceptRate,
        lateAcceptRate);
  }

  public IntegratorFaults withTransientFailureRate(double rate) {
    return new IntegratorFaults(
        latencyMin,
        latencyMax,
        rate,
        rejectionRate,
        timeoutRate,
        timeout,
        droppedAfterAcceptRate,
        lateAcceptRate);
  }

  public IntegratorFaults withRejectionRate(double rate) {
    return new IntegratorFaults(
        latencyMin,
        latencyMax,
        transientFailureRate,
        rate,
        timeoutRate,
        timeout,
        droppedAfterAcceptRate,
        lateAcceptRate);
  }

  /** Sets the timeout rate and how long a timed-out request is held before its 504. */
  public IntegratorFaults withTimeouts(double rate, Duration hold) {
    return new IntegratorFaults(
        latencyMin,
        latencyMax,
        transientFailureRate,
        rejectionRate,
        rate,
        hold,
        droppedAfterAcceptRate,
        lateAcceptRate);
  }

  public IntegratorFaults withDroppedAfterAcceptRate(double rate) {
    return new IntegratorFaults(
        latencyMin,
        latencyMax,
        transientFailureRate,
        rejectionRate,
        timeoutRate,
        timeout,
        rate,
        lateAcceptRate);
  }

  /**
   * Sets the late-accept rate; a late accept is stored {@link #timeout} after it arrived (see
   * {@link #withTimeouts} for the hold).
   */
  public IntegratorFaults withLateAcceptRate(double rate) {
    return new IntegratorFaults(
        latencyMin,
        latencyMax,
        transientFailureRate,
        rejectionRate,
        timeoutRate,
        timeout,
        droppedAfterAcceptRate,
        rate);
  }

  /** No faults, same latency. */
  public IntegratorFaults withoutFaults() {
    return new IntegratorFaults(latencyMin, latencyMax, 0, 0, 0, timeout, 0, 0);
  }
}
