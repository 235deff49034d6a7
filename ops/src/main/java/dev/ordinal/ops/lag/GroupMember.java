package dev.ordinal.ops.lag;

import dev.ordinal.messaging.ConfigurationException;
import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * A member of a consumer group as the coordinator describes it.
 *
 * @param memberId the member (consumer) id the coordinator gave it
 * @param clientId the client's {@code client.id}
 * @param host where it connects from
 * @param assignment the partitions assigned to it, sorted by topic and partition
 */
public record GroupMember(
    String memberId, String clientId, String host, List<TopicPartition> assignment) {
  public GroupMember {
    if (memberId == null) {
      throw new ConfigurationException("memberId must be set");
    }
    clientId = clientId == null ? "" : clientId;
    host = host == null ? "" : host;
    assignment = assignment == null ? List.of() : List.copyOf(assignment);
  }
}
