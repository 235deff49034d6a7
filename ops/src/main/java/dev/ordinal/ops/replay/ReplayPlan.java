package dev.ordinal.ops.replay;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What a replay would do, per partition, as planned by {@link ReplayPlanner} at {@code plannedAt}.
 * Planning changes nothing; {@link ReplayExecutor#execute} applies a plan.
 */
public record ReplayPlan(ReplayRequest request, Instant plannedAt, List<PartitionPlan> partitions) {

  public ReplayPlan {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(plannedAt, "plannedAt");
    partitions = List.copyOf(partitions);
  }

  public String group() {
    return request.group();
  }

  public String topic() {
    return request.topic();
  }

  /** Records delivered again over all partitions. */
  public long redeliver() {
    return partitions.stream().mapToLong(PartitionPlan::redeliver).sum();
  }

  /** Records skipped (never delivered) over all partitions, when the target is ahead. */
  public long skip() {
    return partitions.stream().mapToLong(PartitionPlan::skip).sum();
  }
}
