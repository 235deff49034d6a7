package dev.ordinal.ops.lag;

import dev.ordinal.messaging.ConfigurationException;
import java.time.Duration;

/**
 * The windows of the status rules ({@link LagStatusTracker#classify}).
 *
 * @param window how far back samples are compared; a committed offset unchanged for this long or
 *     longer, with lag, is {@link LagStatus#STOPPED}; a rewind is reported for this long
 * @param stallAfter a committed offset unchanged for at least this long, with lag, is {@link
 *     LagStatus#STALLED}; positive and shorter than {@code window}
 */
public record LagStatusConfig(Duration window, Duration stallAfter) {
  public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(5);
  public static final Duration DEFAULT_STALL_AFTER = Duration.ofMinutes(1);

  public LagStatusConfig {
    if (window == null || window.isNegative() || window.isZero()) {
      throw new ConfigurationException("window must be a positive duration: " + window);
    }
    if (stallAfter == null || stallAfter.isNegative() || stallAfter.isZero()) {
      throw new ConfigurationException("stallAfter must be a positive duration: " + stallAfter);
    }
    if (stallAfter.compareTo(window) >= 0) {
      throw new ConfigurationException(
          "stallAfter "
              + stallAfter
              + " must be shorter than the window "
              + window
              + ", so that a partition is STALLED before it is STOPPED");
    }
  }

  /** A five-minute window; stalled after one minute. */
  public static LagStatusConfig defaults() {
    return new LagStatusConfig(DEFAULT_WINDOW, DEFAULT_STALL_AFTER);
  }
}
