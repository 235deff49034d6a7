package dev.ordinal.ops.lag;

import java.util.Collection;

/**
 * How a group reads a partition, judged over a sliding window of samples by {@link
 * LagStatusTracker#classify}. Declared from best to worst: a group's status is the worst of its
 * partitions'.
 */
public enum LagStatus {
  /** No lag; or a lag that has stayed the same while the group commits (it keeps pace). */
  OK,
  /**
   * Not enough to judge: a first sample with lag, no committed offset on a partition that has
   * records, or a committed offset past the log end.
   */
  UNKNOWN,
  /** The group commits and its lag is smaller than at the start of the window. */
  CATCHING_UP,
  /** The lag is larger than at the start of the window. */
  FALLING_BEHIND,
  /** Lag, and the committed offset has not moved for the stall time, less than the window. */
  STALLED,
  /** Lag, and the committed offset has not moved for the whole window or longer. */
  STOPPED,
  /** The committed offset moved backwards within the window (a reset or a replay). */
  REWOUND;

  /** The worst of {@code statuses}; {@link #OK} when there are none. */
  public static LagStatus worst(Collection<LagStatus> statuses) {
    return statuses.stream().max(Enum::compareTo).orElse(OK);
  }
}
