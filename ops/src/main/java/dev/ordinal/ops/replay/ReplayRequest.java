package dev.ordinal.ops.replay;

import dev.ordinal.messaging.ConfigurationException;
import java.util.Collections;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What an operator asks for: move {@code group}'s committed offsets on {@code topic} to {@code
 * target}, as planned from the committed offsets of {@code source}.
 *
 * @param group the Kafka consumer group whose offsets move
 * @param topic the topic whose partitions move
 * @param partitions the partitions to move; empty means all of the topic's
 * @param target where to
 * @param source the group whose committed offsets the plan starts from: {@code group} itself (null
 *     means that), or another, read and never moved ({@code --into-group}, {@link #into})
 */
public record ReplayRequest(
    String group, String topic, SortedSet<Integer> partitions, ReplayTarget target, String source) {

  public ReplayRequest {
    if (group == null || group.isBlank()) {
      throw new ConfigurationException("A replay needs the consumer group whose offsets move");
    }
    source = source == null ? group : source;
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

  /** {@code group} moved as planned from its own committed offsets. */
  public ReplayRequest(
      String group, String topic, SortedSet<Integer> partitions, ReplayTarget target) {
    this(group, topic, partitions, target, null);
  }

  /**
   * This request applied to {@code newGroup} instead ({@code --into-group}): planned from this
   * group's offsets, which are never moved; this request itself when {@code newGroup} is null.
   */
  public ReplayRequest into(String newGroup) {
    if (newGroup == null) {
      return this;
    }
    if (newGroup.equals(group)) {
      throw new ConfigurationException(
          "--into-group must name a group other than "
              + group
              + ", the one whose offsets are read.");
    }
    return new ReplayRequest(newGroup, topic, partitions, target, group);
  }

  /** Whether {@link #group} is moved as planned from another group's offsets. */
  public boolean intoNewGroup() {
    return !source.equals(group);
  }

  /** The target as recorded and printed; with {@code --into-group} it names the group read. */
  public String describe() {
    return target.describe() + (intoNewGroup() ? " from group " + source : "");
  }

  /** Every partition of the topic. */
  public static ReplayRequest allPartitions(String group, String topic, ReplayTarget target) {
    return new ReplayRequest(group, topic, null, target);
  }
}
