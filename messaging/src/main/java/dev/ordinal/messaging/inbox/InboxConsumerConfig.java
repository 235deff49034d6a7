package dev.ordinal.messaging.inbox;

import dev.ordinal.messaging.ConfigChecks;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.kafka.ContractHeaders;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.runtime.settings.Check;
import dev.ordinal.runtime.settings.Setting;
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
 * @param headers where the message id and event type are read from; null for {@link
 *     ContractHeaders#DEFAULT} (Ordinal's own headers, then CloudEvents')
 * @param clients the Kafka cluster and the user's client properties: the consumer and the
 *     dead-letter producer are made by it
 * @param concurrency how many keys are applied at the same time (records of one key never are)
 * @param deadLetter send poison records to {@code <topic>.dlq} and move on; when false they are
 *     only counted and skipped
 * @param priorityTopics topics served first (priority lanes): while any of their partitions has
 *     records waiting, the other topics' partitions are paused; empty for no lanes
 * @param pollTimeout how long one poll waits for records
 * @param initialBackoff first wait after a failed message (at least 1 ms), doubled up to {@code
 *     maxBackoff}, each wait randomised by ±50 % ({@link dev.ordinal.runtime.Backoff#exponential})
 * @param maxBackoff longest wait between retries of a failing message
 * @param kafka Kafka consumer properties the caller sets (their own names), over the consumer's own
 *     and the user's ({@link KafkaClients})
 */
public record InboxConsumerConfig(
    String consumerName,
    String groupId,
    List<String> topics,
    ContractHeaders headers,
    KafkaClients clients,
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

  /** {@code --concurrency}: how many keys are applied at the same time. */
  public static final Setting<Integer> CONCURRENCY =
      Setting.integer(
          "concurrency",
          DEFAULT_CONCURRENCY,
          "Messages applied in parallel (records of one key never are)",
          Check.range(1, MAX_CONCURRENCY));

  public InboxConsumerConfig {
    Objects.requireNonNull(consumerName, "consumerName");
    Objects.requireNonNull(groupId, "groupId");
    Objects.requireNonNull(clients, "clients");
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
    ConfigurationException.check(CONCURRENCY, concurrency);
    pollTimeout = pollTimeout == null ? DEFAULT_POLL_TIMEOUT : pollTimeout;
    initialBackoff = initialBackoff == null ? DEFAULT_INITIAL_BACKOFF : initialBackoff;
    maxBackoff = maxBackoff == null ? DEFAULT_MAX_BACKOFF : maxBackoff;
    if (initialBackoff.toMillis() < 1) {
      throw new ConfigurationException("initialBackoff must be at least 1 ms: " + initialBackoff);
    }
    ConfigChecks.backoff(initialBackoff, maxBackoff);
    kafka = kafka == null ? Map.of() : Map.copyOf(kafka);
    headers = headers == null ? ContractHeaders.DEFAULT : headers;
  }

  /** Defaults: one key at a time, poison to the dead-letter topic. */
  public static InboxConsumerConfig of(
      String consumerName, String groupId, List<String> topics, String bootstrapServers) {
    return builder(consumerName, groupId, topics, bootstrapServers).build();
  }

  /** Defaults, on the clients {@code clients} make. */
  public static InboxConsumerConfig of(
      String consumerName, String groupId, List<String> topics, KafkaClients clients) {
    return builder(consumerName, groupId, topics, clients).build();
  }

  /**
   * What is needed, on {@code bootstrapServers} with no client properties of the user's; everything
   * else takes its {@code DEFAULT_} constant.
   */
  public static Builder builder(
      String consumerName, String groupId, List<String> topics, String bootstrapServers) {
    return builder(consumerName, groupId, topics, KafkaClients.of(bootstrapServers));
  }

  /** What is needed; everything else takes its {@code DEFAULT_} constant. */
  public static Builder builder(
      String consumerName, String groupId, List<String> topics, KafkaClients clients) {
    return new Builder(consumerName, groupId, topics, clients);
  }

  /** The Kafka bootstrap servers. */
  public String bootstrapServers() {
    return clients.bootstrapServers();
  }

  /** A copy to change. */
  public Builder toBuilder() {
    return builder(consumerName, groupId, topics, clients)
        .concurrency(concurrency)
        .deadLetter(deadLetter)
        .priority(priorityTopics)
        .pollTimeout(pollTimeout)
        .backoff(initialBackoff, maxBackoff)
        .kafka(kafka)
        .headers(headers);
  }

  public InboxConsumerConfig withConcurrency(int n) {
    return toBuilder().concurrency(n).build();
  }

  public InboxConsumerConfig withBackoff(Duration initial, Duration max) {
    return toBuilder().backoff(initial, max).build();
  }

  public InboxConsumerConfig withDeadLetter(boolean enabled) {
    return toBuilder().deadLetter(enabled).build();
  }

  /** Serves {@code topics} first: the others wait while these have records waiting. */
  public InboxConsumerConfig withPriority(List<String> topics) {
    return toBuilder().priority(topics).build();
  }

  /** Builds an {@link InboxConsumerConfig}; what is not set takes its {@code DEFAULT_} constant. */
  public static final class Builder {
    private final String consumerName;
    private final String groupId;
    private final List<String> topics;
    private final KafkaClients clients;
    private int concurrency = DEFAULT_CONCURRENCY;
    private boolean deadLetter = true;
    private List<String> priorityTopics;
    private Duration pollTimeout;
    private Duration initialBackoff;
    private Duration maxBackoff;
    private Map<String, Object> kafka;
    private ContractHeaders headers;

    private Builder(
        String consumerName, String groupId, List<String> topics, KafkaClients clients) {
      this.consumerName = consumerName;
      this.groupId = groupId;
      this.topics = topics;
      this.clients = clients;
    }

    public Builder concurrency(int n) {
      concurrency = n;
      return this;
    }

    /** Poison records to {@code <topic>.dlq} (the default), or only counted and skipped. */
    public Builder deadLetter(boolean enabled) {
      deadLetter = enabled;
      return this;
    }

    /** Topics served first (priority lanes); empty for none. */
    public Builder priority(List<String> topics) {
      priorityTopics = topics;
      return this;
    }

    public Builder pollTimeout(Duration d) {
      pollTimeout = d;
      return this;
    }

    public Builder backoff(Duration initial, Duration max) {
      initialBackoff = initial;
      maxBackoff = max;
      return this;
    }

    /** Kafka consumer properties the caller sets, over the consumer's own and the user's. */
    public Builder kafka(Map<String, Object> properties) {
      kafka = properties;
      return this;
    }

    /** Where the message id and event type are read from. */
    public Builder headers(ContractHeaders names) {
      headers = names;
      return this;
    }

    /**
     * @throws ConfigurationException naming the first setting that is wrong
     */
    public InboxConsumerConfig build() {
      return new InboxConsumerConfig(
          consumerName,
          groupId,
          topics,
          headers,
          clients,
          concurrency,
          deadLetter,
          priorityTopics,
          pollTimeout,
          initialBackoff,
          maxBackoff,
          kafka);
    }
  }

  /** The dead-letter topic of {@code topic}. */
  public static String deadLetterTopic(String topic) {
    return topic + ".dlq";
  }
}
