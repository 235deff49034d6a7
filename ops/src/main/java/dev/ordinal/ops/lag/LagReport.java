package dev.ordinal.ops.lag;

import dev.ordinal.messaging.slot.SlotReading;
import java.util.List;
import java.util.Map;

/**
 * A snapshot with the status of each partition and group, and the relay's replication slots when
 * they were read.
 *
 * @param snapshot the offsets and lags
 * @param window the status window the statuses were judged over
 * @param partitionStatus by group, topic and partition; every partition of the snapshot has one
 * @param groupStatus by group: the worst of its partitions', {@link LagStatus#OK} without any
 * @param slots the logical replication slots; empty when not read
 */
public record LagReport(
    LagSnapshot snapshot,
    LagStatusConfig window,
    Map<PartitionKey, LagStatus> partitionStatus,
    Map<String, LagStatus> groupStatus,
    List<SlotReading> slots) {
  public LagReport {
    partitionStatus = Map.copyOf(partitionStatus);
    groupStatus = Map.copyOf(groupStatus);
    slots = slots == null ? List.of() : List.copyOf(slots);
  }

  public LagStatus status(PartitionKey key) {
    return partitionStatus.getOrDefault(key, LagStatus.UNKNOWN);
  }

  public LagStatus status(String group) {
    return groupStatus.getOrDefault(group, LagStatus.UNKNOWN);
  }

  /** The same report with the replication slots beside it. */
  public LagReport withSlots(List<SlotReading> read) {
    return new LagReport(snapshot, window, partitionStatus, groupStatus, read);
  }
}
