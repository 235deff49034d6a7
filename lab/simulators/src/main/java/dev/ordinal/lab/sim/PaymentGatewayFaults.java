package dev.ordinal.lab.sim;

import dev.ordinal.lab.sim.internal.FaultChecks;
import java.time.Duration;

/**
 * How the simulated payment gateway misbehaves, validated once. Each charge or refund takes a
 * latency drawn uniformly from {@code [latencyMin, latencyMax]}; one draw picks at most one fault,
 * so the rates add up to at most 1.
 *
 * <ul>
 *   <li>transient failure: {@code 503 {"error":"UNAVAILABLE"}} after the latency; nothing charged
 *       or refunded, and a retry with the same key charges normally
 *   <li>dropped after capture: processed normally (charged, or refunded), then the connection is
 *       closed unanswered: the client sees an {@code IOException}; a retry with the same key
 *       returns the charge that was made
 *   <li>decline (charges only): {@code 402 {"error":"DECLINED"}} after the latency; nothing charged
 *       (a permanent answer for this attempt: a retry is declined only if drawn again)
 *   <li>late capture (charges only): the request is answered only after {@code lateCaptureDelay},
 *       and only then charged (the client has usually given up by then); a retry with the same key
 *       that arrives first charges at once, and the late one then finds that charge
 * </ul>
 *
 * @param latencyMin shortest latency, zero or more
 * @param latencyMax longest latency, at least {@code latencyMin}
 * @param transientFailureRate probability of a 503
 * @param droppedAfterCaptureRate probability of processing then dropping the connection
 * @param declineRate probability of declining a charge (402)
 * @param lateCaptureRate probability of charging only after {@code lateCaptureDelay}
 * @param lateCaptureDelay how long after its arrival a late capture is made and answered
 */
public record PaymentGatewayFaults(
    Duration latencyMin,
    Duration latencyMax,
    double transientFailureRate,
    double droppedAfterCaptureRate,
    double declineRate,
    double lateCaptureRate,
    Duration lateCaptureDelay) {

  public static final Duration DEFAULT_LATENCY_MIN = Duration.ofMillis(50);
  public static final Duration DEFAULT_LATENCY_MAX = Duration.ofMillis(500);
  public static final Duration DEFAULT_LATE_CAPTURE_DELAY = Duration.ofSeconds(30);

  /**
   * Null durations take the {@code DEFAULT_} values.
   *
   * @throws IllegalArgumentException naming the setting to change
   */
  public PaymentGatewayFaults {
    latencyMin = latencyMin == null ? DEFAULT_LATENCY_MIN : latencyMin;
    latencyMax = latencyMax == null ? DEFAULT_LATENCY_MAX : latencyMax;
    lateCaptureDelay = lateCaptureDelay == null ? DEFAULT_LATE_CAPTURE_DELAY : lateCaptureDelay;
    FaultChecks.latency(latencyMin, latencyMax);
    if (lateCaptureDelay.isNegative()) {
      throw new IllegalArgumentException(
          "lateCaptureDelayMs must be zero or more, not " + lateCaptureDelay.toMillis());
    }
    FaultChecks.rates(
        new String[] {
          "transientFailureRate", "droppedAfterCaptureRate", "declineRate", "lateCaptureRate"
        },
        transientFailureRate,
        droppedAfterCaptureRate,
        declineRate,
        lateCaptureRate);
  }

  /** Without late captures, as before they existed. */
  public PaymentGatewayFaults(
      Duration latencyMin,
      Duration latencyMax,
      double transientFailureRate,
      double droppedAfterCaptureRate,
      double declineRate) {
    this(
        latencyMin,
        latencyMax,
        transientFailureRate,
        droppedAfterCaptureRate,
        declineRate,
        0,
        null);
  }

  /** Default latency (50 to 500 ms), no faults. */
  public static PaymentGatewayFaults defaults() {
    return new PaymentGatewayFaults(null, null, 0, 0, 0);
  }

  public PaymentGatewayFaults withLatency(Duration min, Duration max) {
    return new PaymentGatewayFaults(
        min,
        max,
        transientFailureRate,
        droppedAfterCaptureRate,
        declineRate,
        lateCaptureRate,
        lateCaptureDelay);
  }

  public PaymentGatewayFaults withTransientFailureRate(double rate) {
    return new PaymentGatewayFaults(
        latencyMin,
        latencyMax,
        rate,
        droppedAfterCaptureRate,
        declineRate,
        lateCaptureRate,
        lateCaptureDelay);
  }

  public PaymentGatewayFaults withDroppedAfterCaptureRate(double rate) {
    return new PaymentGatewayFaults(
        latencyMin,
        latencyMax,
        transientFailureRate,
        rate,
        declineRate,
        lateCaptureRate,
        lateCaptureDelay);
  }

  public PaymentGatewayFaults withDeclineRate(double rate) {
    return new PaymentGatewayFaults(
        latencyMin,
        latencyMax,
        transientFailureRate,
        droppedAfterCaptureRate,
        rate,
        lateCaptureRate,
        lateCaptureDelay);
  }

  /**
   * Charges drawn at {@code rate} are made and answered only {@code delay} after they arrived (a
   * gateway that captures after the client gave up).
   */
  public PaymentGatewayFaults withLateCaptures(double rate, Duration delay) {
    return new PaymentGatewayFaults(
        latencyMin,
        latencyMax,
        transientFailureRate,
        droppedAfterCaptureRate,
        declineRate,
        rate,
        delay);
  }
}
