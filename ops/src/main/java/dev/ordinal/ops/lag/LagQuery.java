package dev.ordinal.ops.lag;

import dev.ordinal.messaging.ConfigurationException;

/**
 * Which groups and topics a {@link LagReader} reads.
 *
 * @param group one consumer group; null for every consumer group of the cluster
 * @param topic only this topic's partitions; null for every topic the groups read
 */
public record LagQuery(String group, String topic) {
  public LagQuery {
    if (group != null && group.isBlank()) {
      throw new ConfigurationException("group must be a consumer group id, not blank");
    }
    if (topic != null && topic.isBlank()) {
      throw new ConfigurationException("topic must be a topic name, not blank");
    }
  }

  /** Every consumer group, every topic. */
  public static LagQuery all() {
    return new LagQuery(null, null);
  }

  public static LagQuery group(String group) {
    return new LagQuery(group, null);
  }

  public boolean includes(String topicName) {
    return topic == null || topic.equals(topicName);
  }
}
