package dev.ordinal.ops.replay;

/**
 * One partition of a {@link ReplayPlan}.
 *
 * @param partition the partition number
 * @param current the group's committed offset now (the next record it would read)
 * @param target the offset the group is set to
 * @param earliest the first offset still in the partition's log
 * @param latest the end of the log (the offset the next record will get)
 */
public record PartitionPlan(int partition, long current, long target, long earliest, long latest) {

  /** Records the group will be given again: {@code max(0, current - target)}. */
  public long redeliver() {
    return Math.max(0, current - target);
  }

  /** Records the group will never be given: {@code max(0, target - current)}. */
  public long skip() {
    return Math.max(0, target - current);
  }
}
