package dev.ordinal.messaging.inbox;

import dev.ordinal.messaging.ConfigurationException;
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
 * @param concurrency how many keys are applied at the same time (records of one key never are)
 * @param deadLetter send poison records to {@code <topic>.dlq} and move on; when false they are
 *     only counted and skipped
 * @param priorityTopics topics served first (priority lanes): while any of their partitions has
 *     records waiting, the other topics' partitions are paused; empty for no lanes
 * @param pollTimeout how long one poll waits for records
 * @param initialBackoff first wait after a failed message (at least 1 ms), doubled up to {@code
 *     maxBackoff}, each wait randomised by ±50 % ({@link dev.ordinal.runtime.Backoff#exponential})
 * @param maxBackoff longest wait between retries of a failing message
 * @param kafka pass-through Kafka consumer properties (their own names), applied last
 */
public record InboxConsumerConfig(
    String consumerName,
    String groupId,
    List<String> topics,
    String bootstrapServers,
    int concurrency,
    boolean deadLetter,
    List<String> priorityTopics,
    Duration pollTimeout,
    Duration initialBackoff,
    Duration maxBackoff,
    Map<String, Object> kafka) {

  public static final int DEFAULT_CONCURRENCY = 1;
  public static final int MAX_CONCURRENCY = 256;
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
    priorityTopics = priorityTopics == null ? List.of() : List.copyOf(priorityTopics);
    if (!topics.containsAll(priorityTopics)) {
      throw new ConfigurationException(
          "priorityTopics must be among the topics read: " + priorityTopics + " not in " + topics);
    }
    concurrency = concurrency == 0 ? DEFAULT_CONCURRENCY : concurrency;
    if (concurrency < 1 || concurrency > MAX_CONCURRENCY) {
      throw new ConfigurationException(
          "concurrency must be 1 to " + MAX_CONCURRENCY + ", not " + concurrency);
    }
    pollTimeout = pollTimeout == null ? DEFAULT_POLL_TIMEOUT : pollTimeout;
    initialBackoff = initialBackoff == null ? DEFAULT_INITIAL_BACKOFF : initialBackoff;
    maxBackoff = maxBackoff == null ? DEFAULT_MAX_BACKOFF : maxBackoff;
    if (initialBackoff.toMillis() < 1) {
      throw new ConfigurationException("initialBackoff must be at least 1 ms: " + initialBackoff);
    }
    if (maxBackoff.compareTo(initialBackoff) < 0) {
      throw new ConfigurationException("maxBackoff must not be shorter than initialBackoff");
    }
    kafka = kafka == null ? Map.of() : Map.copyOf(kafka);
  }

  /** Defaults: one key at a time, poison to the dead-letter topic. */
  public static InboxConsumerConfig of(
      String consumerName, String groupId, List<String> topics, String bootstrapServers) {
    return new InboxConsumerConfig(
        consumerName, groupId, topics, bootstrapServers, 0, true, null, null, null, null, null);
  }

  public InboxConsumerConfig withConcurrency(int n) {
    return new InboxConsumerConfig(
        consumerName,
        groupId,
        topics,
        bootstrapServers,
        n,
        deadLetter,
        priorityTopics,
        pollTimeout,
        initialBackoff,
        maxBackoff,
        kafka);
  }

  public InboxConsumerConfig withBackoff(Duration initial, Duration max) {
    return new InboxConsumerConfig(
        consumerName,
        groupId,
        topics,
        bootstrapServers,
        concurrency,
        deadLetter,
        priorityTopics,
        pollTimeout,
        initial,
        max,
        kafka);
  }

  public InboxConsumerConfig withDeadLetter(boolean enabled) {
    return new InboxConsumerConfig(
        consumerName,
        groupId,
        topics,
        bootstrapServers,
        concurrency,
        enabled,
        priorityTopics,
        pollTimeout,
        initialBackoff,
        maxBackoff,
        kafka);
  }

  /** Serves {@code topics} first: the others wait while these have records waiting. */
  public InboxConsumerConfig withPriority(List<String> topics) {
    return new InboxConsumerConfig(
        consumerName,
        groupId,
        this.topics,
        bootstrapServers,
        concurrency,
        deadLetter,
        topics,
        pollTimeout,
        initialBackoff,
        maxBackoff,
        kafka);
  }

  /** The dead-letter topic of {@code topic}. */
  public static String deadLetterTopic(String topic) {
    return topic + ".dlq";
  }
}
