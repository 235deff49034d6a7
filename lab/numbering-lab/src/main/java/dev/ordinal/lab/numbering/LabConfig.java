package dev.ordinal.lab.numbering;

import dev.ordinal.messaging.ConfigurationException;
import java.time.Duration;

/**
 * The workload and the faults of one {@link NumberingLab} run; every strategy gets the same.
 *
 * @param invoices invoices per strategy, each for its own order, in one series per strategy
 * @param workers senders working one series at the same time (at least 2, or nothing races)
 * @param latencyMin shortest integrator latency
 * @param latencyMax longest integrator latency
 * @param transientFailureRate share of integrator submissions answered 503 (nothing stored)
 * @param rejectionRate share of integrator submissions answered 422 (refused for good)
 * @param cancelEvery every n-th order is cancelled after its invoice was created and before it is
 *     sent; 0 cancels none
 * @param consumerOrders orders of the double-delivery race
 * @param deliveries how many threads apply each order's message at the same time
 * @param raceWindow pause between a consumer's check and its write, to make the check-then-act race
 *     show every time; the project's consumer gets the same pause
 */
public record LabConfig(
    int invoices,
    int workers,
    Duration latencyMin,
    Duration latencyMax,
    double transientFailureRate,
    double rejectionRate,
    int cancelEvery,
    int consumerOrders,
    int deliveries,
    Duration raceWindow) {
  public static final int DEFAULT_INVOICES = 200;
  public static final int DEFAULT_WORKERS = 4;
  public static final Duration DEFAULT_LATENCY_MIN = Duration.ofMillis(10);
  public static final Duration DEFAULT_LATENCY_MAX = Duration.ofMillis(30);
  public static final double DEFAULT_TRANSIENT_FAILURE_RATE = 0.10;
  public static final double DEFAULT_REJECTION_RATE = 0.05;
  public static final int DEFAULT_CANCEL_EVERY = 10;
  public static final int DEFAULT_CONSUMER_ORDERS = 20;
  public static final int DEFAULT_DELIVERIES = 4;
  public static final Duration DEFAULT_RACE_WINDOW = Duration.ofMillis(10);

  public LabConfig {
    if (invoices < 1 || invoices > 100_000) {
      throw new ConfigurationException("invoices must be 1 to 100000, not " + invoices);
    }
    if (workers < 2 || workers > 64) {
      throw new ConfigurationException(
          "workers must be 2 to 64 (one worker cannot race), not " + workers);
    }
    if (latencyMin.isNegative() || latencyMax.compareTo(latencyMin) < 0) {
      throw new ConfigurationException(
          "latency must satisfy 0 <= latencyMin <= latencyMax, not "
              + latencyMin
              + ".."
              + latencyMax);
    }
    if (latencyMax.isZero()) {
      throw new ConfigurationException(
          "latencyMax must be above zero: with an instant integrator no strategy races");
    }
    if (transientFailureRate < 0
        || rejectionRate < 0
        || transientFailureRate + rejectionRate > 0.5) {
      throw new ConfigurationException(
          "transientFailureRate and rejectionRate must be >= 0 and add up to at most 0.5, not "
              + transientFailureRate
              + " and "
              + rejectionRate);
    }
    if (cancelEvery < 0 || cancelEvery == 1) {
      throw new ConfigurationException(
          "cancelEvery must be 0 (no cancellations) or at least 2, not " + cancelEvery);
    }
    if (consumerOrders < 1 || consumerOrders > 10_000) {
      throw new ConfigurationException("consumerOrders must be 1 to 10000, not " + consumerOrders);
    }
    if (deliveries < 2 || deliveries > 64) {
      throw new ConfigurationException("deliveries must be 2 to 64, not " + deliveries);
    }
    if (raceWindow.isNegative()) {
      throw new ConfigurationException("raceWindow must not be negative: " + raceWindow);
    }
  }

  public static LabConfig defaults() {
    return new LabConfig(
        DEFAULT_INVOICES,
        DEFAULT_WORKERS,
        DEFAULT_LATENCY_MIN,
        DEFAULT_LATENCY_MAX,
        DEFAULT_TRANSIENT_FAILURE_RATE,
        DEFAULT_REJECTION_RATE,
        DEFAULT_CANCEL_EVERY,
        DEFAULT_CONSUMER_ORDERS,
        DEFAULT_DELIVERIES,
        DEFAULT_RACE_WINDOW);
  }

  public LabConfig withWorkers(int n) {
    return new LabConfig(
        invoices,
        n,
        latencyMin,
        latencyMax,
        transientFailureRate,
        rejectionRate,
        cancelEvery,
        consumerOrders,
        deliveries,
        raceWindow);
  }

  /** How many of the {@link #invoices} are cancelled before they are sent. */
  public int cancelled() {
    return cancelEvery == 0 ? 0 : invoices / cancelEvery;
  }

  /** True for the orders (by 0-based index) that are cancelled before sending. */
  boolean cancels(int index) {
    return cancelEvery != 0 && index % cancelEvery == cancelEvery - 1;
  }
}
