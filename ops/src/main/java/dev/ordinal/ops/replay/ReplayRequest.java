package dev.ordinal.ops.replay;

import dev.ordinal.messaging.ConfigurationException;
import java.util.Collections;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What an operator asks for: move {@code group}'s committed offsets on {@code topic} to {@code
 * target}.
 *
 * @param group the Kafka consumer group
 * @param topic the topic whose partitions move
 * @param partitions the partitions to move; empty means all of the topic's
 * @param target where to
 */
public record ReplayRequest(
    String group, String topic, SortedSet<Integer> partitions, ReplayTarget target) {

  public ReplayRequest {
    if (group == null || group.isBlank()) {
      throw new ConfigurationException("A replay needs the consumer group whose offsets move");
    }
    if (topic == null || topic.isBlank()) {
      throw new ConfigurationException("A replay needs the topic whose offsets move");
    }
    Objects.requireNonNull(target, "target");
    partitions = partitions == null ? new TreeSet<>() : new TreeSet<>(partitions);
    for (int p : partitions) {
      if (p < 0) {
        throw new ConfigurationException("Partition numbers are 0 or more, not " + p);
      }
    }
    partitions = Collections.unmodifiableSortedSet(partitions);
  }

  /** Every partition of the topic. */
  public static ReplayRequest allPartitions(String group, String topic, ReplayTarget target) {
    return new ReplayRequest(group, topic, null, target);
  }
}
