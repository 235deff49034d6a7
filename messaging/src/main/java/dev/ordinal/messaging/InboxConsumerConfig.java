package dev.ordinal.messaging;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of an {@link InboxConsumer}.
 *
 * @param consumerName the name stored in the inbox with each message id; one per logical consumer
 *     (changing it makes every message new again)
 * @param groupId the Kafka consumer group
 * @param topics the topics to read
 * @param bootstrapServers Kafka bootstrap servers
 * @param pollTimeout how long one poll waits for records
 * @param initialBackoff first wait after a failed message, doubled up to {@code maxBackoff}
 * @param maxBackoff longest wait between retries of a failing message
 * @param kafka pass-through Kafka consumer properties (their own names), applied last
 */
public record InboxConsumerConfig(
    String consumerName,
    String groupId,
    List<String> topics,
    String bootstrapServers,
    Duration pollTimeout,
    Duration initialBackoff,
    Duration maxBackoff,
    Map<String, Object> kafka) {

  public static final Duration DEFAULT_POLL_TIMEOUT = Duration.ofMillis(200);
  public static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofMillis(100);
  public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(10);

  public InboxConsumerConfig {
    Objects.requireNonNull(consumerName, "consumerName");
    Objects.requireNonNull(groupId, "groupId");
    Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    if (consumerName.isBlank() || consumerName.length() > 128) {
      throw new ConfigurationException("consumerName must have 1 to 128 characters");
    }
    if (topics == null || topics.isEmpty()) {
      throw new ConfigurationException("An inbox consumer needs at least one topic to read");
    }
    topics = List.copyOf(topics);
    pollTimeout = pollTimeout == null ? DEFAULT_POLL_TIMEOUT : pollTimeout;
    initialBackoff = initialBackoff == null ? DEFAULT_INITIAL_BACKOFF : initialBackoff;
    maxBackoff = maxBackoff == null ? DEFAULT_MAX_BACKOFF : maxBackoff;
    if (maxBackoff.compareTo(initialBackoff) < 0) {
      throw new ConfigurationException("maxBackoff must not be shorter than initialBackoff");
    }
    kafka = kafka == null ? Map.of() : Map.copyOf(kafka);
  }

  public static InboxConsumerConfig of(
      String consumerName, String groupId, List<String> topics, String bootstrapServers) {
    return new InboxConsumerConfig(
        consumerName, groupId, topics, bootstrapServers, null, null, null, null);
  }
}
