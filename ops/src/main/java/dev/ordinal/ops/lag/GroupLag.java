package dev.ordinal.ops.lag;

import dev.ordinal.messaging.ConfigurationException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One consumer group at one moment: its state and members, and its lag on every partition it has a
 * committed offset on or is assigned (the rows {@code kafka-consumer-groups --describe} prints).
 *
 * @param group the group id
 * @param state the coordinator's state of the group ({@code Stable}, {@code Empty}, {@code
 *     PreparingRebalance}, ...), as Kafka names it
 * @param members the members, as the coordinator describes them
 * @param partitions per partition, sorted by topic and partition
 */
public record GroupLag(
    String group, String state, List<GroupMember> members, List<PartitionLag> partitions) {
  public GroupLag {
    if (group == null || group.isEmpty()) {
      throw new ConfigurationException("group must be a consumer group id, not empty");
    }
    state = state == null ? "Unknown" : state;
    members = members == null ? List.of() : List.copyOf(members);
    partitions = partitions == null ? List.of() : List.copyOf(partitions);
  }

  /** Sum of the positive lags in records; partitions whose lag is unknown count 0. */
  public long totalLag() {
    return partitions.stream()
        .map(PartitionLag::lag)
        .filter(Objects::nonNull)
        .mapToLong(l -> Math.max(0, l))
        .sum();
  }

  /** The oldest next record over the partitions: the group's lag in time; empty when unknown. */
  public Optional<Duration> maxTimeLag() {
    return partitions.stream()
        .map(PartitionLag::timeLag)
        .filter(Objects::nonNull)
        .max(Duration::compareTo);
  }

  /** The key of one of this group's partitions, for statuses and gauges. */
  public PartitionKey key(PartitionLag p) {
    return new PartitionKey(group, p.topic(), p.partition());
  }
}
