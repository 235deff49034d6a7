package dev.ordinal.lab.sim.internal;

import java.time.Duration;

/** The checks every fault record shares. */
public final class FaultChecks {
  /** Rates that add up to 1 within this are accepted (decimal fractions do not add exactly). */
  private static final double SLACK = 1e-9;

  private FaultChecks() {}

  public static void latency(Duration min, Duration max) {
    if (min.isNegative()) {
      throw new IllegalArgumentException("latencyMin must not be negative: " + min);
    }
    if (max.compareTo(min) < 0) {
      throw new IllegalArgumentException(
          "latencyMax (" + max + ") must be at least latencyMin (" + min + ")");
    }
  }

  public static void rates(String[] names, double... rates) {
    double sum = 0;
    for (int i = 0; i < rates.length; i++) {
      if (!(rates[i] >= 0 && rates[i] <= 1)) {
        throw new IllegalArgumentException(
            names[i] + " must be a probability from 0 to 1: " + rates[i]);
      }
      sum += rates[i];
    }
    if (sum > 1 + SLACK) {
      throw new IllegalArgumentException(
          String.join(" + ", names)
              + " = "
              + sum
              + ", but one draw picks at most one fault, so they must add up to at most 1;"
              + " lower one of them.");
    }
  }
}
