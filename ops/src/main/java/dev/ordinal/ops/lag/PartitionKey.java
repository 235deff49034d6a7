package dev.ordinal.ops.lag;

import dev.ordinal.messaging.ConfigurationException;

/** One partition as read by one consumer group: what a status and a gauge belong to. */
public record PartitionKey(String group, String topic, int partition) {
  public PartitionKey {
    if (group == null || group.isEmpty()) {
      throw new ConfigurationException("group must be a consumer group id, not empty");
    }
    if (topic == null || topic.isEmpty()) {
      throw new ConfigurationException("topic must be a topic name, not empty");
    }
    if (partition < 0) {
      throw new ConfigurationException("partition must be 0 or more: " + partition);
    }
  }

  @Override
  public String toString() {
    return group + "/" + topic + "-" + partition;
  }
}
