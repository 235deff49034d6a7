package dev.ordinal.runtime;

import io.github.resilience4j.core.IntervalFunction;
import java.time.Duration;
import java.util.Objects;

/**
 * An exponential backoff with jitter, the one retry policy of Ordinal's loops: the wait after the
 * {@code n}-th failure in a row is {@code initial × multiplier^(n−1)}, randomised by ± {@code
 * randomization} of itself, and never longer than {@code max}.
 *
 * <p>What the caller can rely on, for {@link #delay(int) delay(n)}:
 *
 * <ul>
 *   <li>with {@code randomization} 0 the waits are exact: {@code initial}, {@code initial ×
 *       multiplier}, … up to {@code max} (whole milliseconds);
 *   <li>otherwise each wait lies within {@code [w × (1 − randomization), w × (1 + randomization)]}
 *       of that exact wait {@code w}, rounded down to a millisecond, and still at most {@code max};
 *   <li>every wait is at least one millisecond.
 * </ul>
 *
 * Immutable and safe to share between threads. Waits are computed by resilience4j's {@link
 * IntervalFunction#ofExponentialRandomBackoff}.
 */
public final class Backoff {
  /** Each wait doubles the one before. */
  public static final double DEFAULT_MULTIPLIER = 2.0;

  /** Each wait is randomised by ±50 %, so that loops failing together do not retry together. */
  public static final double DEFAULT_RANDOMIZATION = 0.5;

  private final Duration initial;
  private final double multiplier;
  private final double randomization;
  private final Duration max;
  private final IntervalFunction interval;
  private final int saturation;

  /**
   * @param initial the wait after the first failure, at least 1 ms
   * @param multiplier how much each wait grows over the one before, at least 1
   * @param randomization the jitter as a fraction of the wait, from 0 (none) to below 1
   * @param max the longest wait, not shorter than {@code initial}
   * @throws IllegalArgumentException when a value is out of these bounds
   */
  public Backoff(Duration initial, double multiplier, double randomization, Duration max) {
    Objects.requireNonNull(initial, "initial");
    Objects.requireNonNull(max, "max");
    if (initial.toMillis() < 1) {
      throw new IllegalArgumentException("initial must be at least 1 ms: " + initial);
    }
    if (max.compareTo(initial) < 0) {
      throw new IllegalArgumentException("max must not be shorter than initial: " + max);
    }
    if (!(multiplier >= 1.0)) {
      throw new IllegalArgumentException("multiplier must be at least 1: " + multiplier);
    }
    if (!(randomization >= 0.0 && randomization < 1.0)) {
      throw new IllegalArgumentException("randomization must be in [0, 1): " + randomization);
    }
    this.initial = initial;
    this.multiplier = multiplier;
    this.randomization = randomization;
    this.max = max;
    this.interval =
        IntervalFunction.ofExponentialRandomBackoff(initial, multiplier, randomization, max);
    this.saturation = saturation(initial, multiplier, randomization, max);
  }

  /**
   * The attempt from which every wait is {@code max} whatever the jitter (its exact wait is then at
   * least {@code max / (1 − randomization)}): later attempts are computed as this one, since the
   * interval function steps through each attempt before it.
   */
  private static int saturation(
      Duration initial, double multiplier, double randomization, Duration max) {
    if (multiplier == 1.0) {
      return 1;
    }
    double ratio = max.toMillis() / ((1.0 - randomization) * initial.toMillis());
    double steps = Math.ceil(Math.log(Math.max(ratio, 1.0)) / Math.log(multiplier));
    // two more for the whole milliseconds each step rounds down to
    return (int) Math.min(Integer.MAX_VALUE, steps + 3);
  }

  /**
   * Doubling from {@code initial} to {@code max}, ±50 % ({@link #DEFAULT_MULTIPLIER}, {@link
   * #DEFAULT_RANDOMIZATION}).
   */
  public static Backoff exponential(Duration initial, Duration max) {
    return new Backoff(initial, DEFAULT_MULTIPLIER, DEFAULT_RANDOMIZATION, max);
  }

  /**
   * The wait after the {@code attempt}-th failure in a row (1 for the first).
   *
   * @throws IllegalArgumentException when {@code attempt} is below 1
   */
  public Duration delay(int attempt) {
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt must be at least 1: " + attempt);
    }
    return Duration.ofMillis(interval.apply(Math.min(attempt, saturation)));
  }

  public Duration initial() {
    return initial;
  }

  public double multiplier() {
    return multiplier;
  }

  public double randomization() {
    return randomization;
  }

  public Duration max() {
    return max;
  }

  @Override
  public String toString() {
    return "Backoff[initial="
        + initial
        + ", multiplier="
        + multiplier
        + ", randomization="
        + randomization
        + ", max="
        + max
        + "]";
  }
}
