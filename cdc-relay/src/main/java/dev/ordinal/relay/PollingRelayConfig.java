package dev.ordinal.relay;

import dev.ordinal.messaging.ConfigChecks;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.Preflight;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.HeaderFormat;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.messaging.kafka.Topics;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * Settings of a {@link PollingRelay}, validated once: a wrong value throws {@link
 * ConfigurationException} naming the field and what to change.
 *
 * @param db the database, already pointing at the outbox's schema ({@link
 *     DatabaseSettings#withSchema}); the role needs SELECT and UPDATE on {@code outbox}, no
 *     REPLICATION
 * @param kafkaClients the Kafka cluster and the user's client properties: the producer is made by
 *     it
 * @param outboxSchema the outbox's schema, naming the events' CloudEvents source; null for {@code
 *     default}
 * @param outboxTable the outbox table: Ordinal's own unless a team's (null); either way with the
 *     columns {@code dispatched_at}, {@code lease_owner} and {@code leased_until}
 * @param headerFormat the events' headers: Ordinal's (null), CloudEvents' or both
 * @param topicPrefix events go to {@code <topicPrefix>.<aggregate_type>}
 * @param instanceId this instance's lease owner name, 1 to {@value #MAX_INSTANCE_ID_LENGTH}
 *     characters, unique among the instances on one outbox; null means a random one
 * @param pollInterval wait after a batch that was not full; null means {@link
 *     #DEFAULT_POLL_INTERVAL}. It is roughly the publishing latency of an idle relay
 * @param batchSize rows claimed per batch, 1 to {@value #MAX_BATCH_SIZE}
 * @param lease how long a claimed batch belongs to this instance; null means {@link
 *     #DEFAULT_LEASE}. Must be longer than {@link #sendTimeout()}, so that every send of a batch
 *     has succeeded or failed before anyone else may claim its rows
 * @param kafka Kafka producer properties the caller sets, with their own names, over the producer's
 *     own and the user's; {@code acks} and {@code enable.idempotence} may not be weakened
 * @param topicPartitions partitions of the topics the relay creates
 * @param topicDurability replication factor and {@code min.insync.replicas} of the topics the relay
 *     creates (capped by the brokers present)
 */
public record PollingRelayConfig(
    DatabaseSettings db,
    KafkaClients kafkaClients,
    String outboxSchema,
    OutboxTable outboxTable,
    HeaderFormat headerFormat,
    String topicPrefix,
    String instanceId,
    Duration pollInterval,
    int batchSize,
    Duration lease,
    Map<String, Object> kafka,
    int topicPartitions,
    Topics.Durability topicDurability) {

  /** The interval polling outbox relays commonly use. */
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(500);

  public static final int DEFAULT_BATCH_SIZE = 500;
  public static final int MAX_BATCH_SIZE = 10_000;
  public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
  public static final int MAX_INSTANCE_ID_LENGTH = 64;

  /** The producer's {@code delivery.timeout.ms} unless {@code kafka} sets it. */
  public static final Duration DEFAULT_DELIVERY_TIMEOUT = Duration.ofSeconds(15);

  /** The producer's {@code max.block.ms} unless {@code kafka} sets it. */
  public static final Duration DEFAULT_MAX_BLOCK = Duration.ofSeconds(5);

  private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,200}");

  public PollingRelayConfig {
    if (db == null) {
      throw new ConfigurationException(
          "db must be set: the database holding the outbox, with withSchema(<outbox schema>).");
    }
    if (kafkaClients == null) {
      throw new ConfigurationException(
          "kafkaClients must be set: the Kafka cluster (" + Preflight.KAFKA_SETTING + ").");
    }
    if (topicPrefix == null || !TOPIC.matcher(topicPrefix).matches()) {
      throw new ConfigurationException(
          "topicPrefix must be letters, digits, '.', '_' or '-': " + topicPrefix);
    }
    instanceId = instanceId == null ? "polling-" + UUID.randomUUID() : instanceId;
    if (instanceId.isBlank() || instanceId.length() > MAX_INSTANCE_ID_LENGTH) {
      throw new ConfigurationException(
          "instanceId must be 1 to "
              + MAX_INSTANCE_ID_LENGTH
              + " characters, not blank (it is stored in outbox.lease_owner): '"
              + instanceId
              + "'");
    }
    pollInterval = ConfigChecks.positive("pollInterval", pollInterval, DEFAULT_POLL_INTERVAL);
    ConfigChecks.oneTo("batchSize", batchSize, MAX_BATCH_SIZE);
    kafka = kafka == null ? Map.of() : Map.copyOf(kafka);
    requireUnweakened(kafka, ProducerConfig.ACKS_CONFIG, "all", "-1");
    requireUnweakened(kafka, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    lease = ConfigChecks.positive("lease", lease, DEFAULT_LEASE);
    ConfigChecks.oneTo("topicPartitions", topicPartitions, Integer.MAX_VALUE);
    topicDurability = topicDurability == null ? Topics.Durability.DEFAULT : topicDurability;
    outboxSchema = outboxSchema == null ? "default" : outboxSchema;
    outboxTable = outboxTable == null ? OutboxTable.DEFAULT : outboxTable;
    headerFormat = headerFormat == null ? HeaderFormat.ORDINAL : headerFormat;
    Duration delivery =
        millis(kafka, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, DEFAULT_DELIVERY_TIMEOUT);
    Duration block = millis(kafka, ProducerConfig.MAX_BLOCK_MS_CONFIG, DEFAULT_MAX_BLOCK);
    if (lease.compareTo(delivery.plus(block)) <= 0) {
      throw new ConfigurationException(
          "lease ("
              + lease.toMillis()
              + " ms) must be longer than the producer's delivery.timeout.ms ("
              + delivery.toMillis()
              + ") plus max.block.ms ("
              + block.toMillis()
              + "), or another instance could claim a batch that is still being sent: raise"
              + " lease, or lower kafka delivery.timeout.ms / max.block.ms.");
    }
  }

  /** Defaults for everything but where things are; a random {@code instanceId}. */
  public static PollingRelayConfig of(
      DatabaseSettings db, String kafkaBootstrap, String topicPrefix) {
    return builder(db, kafkaBootstrap, topicPrefix).build();
  }

  /**
   * Where things are, with no Kafka client properties of the user's; everything else takes its
   * {@code DEFAULT_} constant until set.
   */
  public static Builder builder(DatabaseSettings db, String kafkaBootstrap, String topicPrefix) {
    if (kafkaBootstrap == null || kafkaBootstrap.isBlank()) {
      throw new ConfigurationException(
          "kafkaBootstrap is empty: set " + Preflight.KAFKA_SETTING + " (host:port).");
    }
    return builder(db, KafkaClients.of(kafkaBootstrap), topicPrefix);
  }

  /** Where things are; everything else takes its {@code DEFAULT_} constant until set. */
  public static Builder builder(
      DatabaseSettings db, KafkaClients kafkaClients, String topicPrefix) {
    return new Builder(db, kafkaClients, topicPrefix);
  }

  /** The Kafka bootstrap servers. */
  public String kafkaBootstrap() {
    return kafkaClients.bootstrapServers();
  }

  /** A copy to change. */
  public Builder toBuilder() {
    return builder(db, kafkaClients, topicPrefix)
        .instanceId(instanceId)
        .pollInterval(pollInterval)
        .batchSize(batchSize)
        .lease(lease)
        .kafka(kafka)
        .topics(topicPartitions, topicDurability)
        .outbox(outboxSchema, outboxTable, headerFormat);
  }

  public PollingRelayConfig withInstanceId(String id) {
    return toBuilder().instanceId(id).build();
  }

  public PollingRelayConfig withPolling(Duration interval, int batch) {
    return toBuilder().pollInterval(interval).batchSize(batch).build();
  }

  public PollingRelayConfig withLease(Duration duration) {
    return toBuilder().lease(duration).build();
  }

  public PollingRelayConfig withKafka(Map<String, Object> properties) {
    return toBuilder().kafka(properties).build();
  }

  /** Builds a {@link PollingRelayConfig}; what is not set takes its {@code DEFAULT_} constant. */
  public static final class Builder {
    private final DatabaseSettings db;
    private final KafkaClients kafkaClients;
    private final String topicPrefix;
    private String instanceId;
    private Duration pollInterval;
    private int batchSize = DEFAULT_BATCH_SIZE;
    private Duration lease;
    private Map<String, Object> kafka;
    private int topicPartitions = Topics.DEFAULT_PARTITIONS;
    private Topics.Durability topicDurability;
    private String outboxSchema;
    private OutboxTable outboxTable;
    private HeaderFormat headerFormat;

    private Builder(DatabaseSettings db, KafkaClients kafkaClients, String topicPrefix) {
      this.db = db;
      this.kafkaClients = kafkaClients;
      this.topicPrefix = topicPrefix;
    }

    /** The lease owner name (null: a random one). */
    public Builder instanceId(String id) {
      instanceId = id;
      return this;
    }

    /** The outbox's schema and table, and the headers of its events (nulls: the defaults). */
    public Builder outbox(String schema, OutboxTable table, HeaderFormat headers) {
      outboxSchema = schema;
      outboxTable = table;
      headerFormat = headers;
      return this;
    }

    /** Wait after a batch that was not full (null: {@link #DEFAULT_POLL_INTERVAL}). */
    public Builder pollInterval(Duration d) {
      pollInterval = d;
      return this;
    }

    public Builder batchSize(int n) {
      batchSize = n;
      return this;
    }

    public Builder lease(Duration d) {
      lease = d;
      return this;
    }

    /** Partitions and durability of the topics the relay creates. */
    public Builder topics(int partitions, Topics.Durability durability) {
      topicPartitions = partitions;
      topicDurability = durability;
      return this;
    }

    /** Pass-through Kafka producer properties, applied last. */
    public Builder kafka(Map<String, Object> properties) {
      kafka = properties;
      return this;
    }

    /**
     * @throws ConfigurationException naming the first setting that is wrong
     */
    public PollingRelayConfig build() {
      return new PollingRelayConfig(
          db,
          kafkaClients,
          outboxSchema,
          outboxTable,
          headerFormat,
          topicPrefix,
          instanceId,
          pollInterval,
          batchSize,
          lease,
          kafka,
          topicPartitions,
          topicDurability);
    }
  }

  /** The producer's {@code delivery.timeout.ms}: from {@code kafka}, or the default. */
  public Duration deliveryTimeout() {
    return millis(kafka, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, DEFAULT_DELIVERY_TIMEOUT);
  }

  /** The producer's {@code max.block.ms}: from {@code kafka}, or the default. */
  public Duration maxBlock() {
    return millis(kafka, ProducerConfig.MAX_BLOCK_MS_CONFIG, DEFAULT_MAX_BLOCK);
  }

  /**
   * The longest a send can take from the call to its acknowledgement or failure: {@link
   * #maxBlock()} (waiting for metadata or buffer space) plus {@link #deliveryTimeout()}. Always
   * shorter than {@link #lease()}.
   */
  public Duration sendTimeout() {
    return maxBlock().plus(deliveryTimeout());
  }

  private static void requireUnweakened(
      Map<String, Object> kafka, String property, String... allowed) {
    Object value = kafka.get(property);
    if (value == null) {
      return;
    }
    for (String a : allowed) {
      if (a.equalsIgnoreCase(String.valueOf(value).trim())) {
        return;
      }
    }
    throw new ConfigurationException(
        "kafka "
            + property
            + "="
            + value
            + " is refused: the polling relay marks a row dispatched only once Kafka has it, which"
            + " needs "
            + property
            + "="
            + allowed[0]
            + "; remove the setting.");
  }

  private static Duration millis(Map<String, Object> kafka, String property, Duration otherwise) {
    Object value = kafka.get(property);
    if (value == null) {
      return otherwise;
    }
    try {
      long ms = Long.parseLong(String.valueOf(value).trim());
      if (ms < 0) {
        throw new NumberFormatException();
      }
      return Duration.ofMillis(ms);
    } catch (NumberFormatException e) {
      throw new ConfigurationException(
          "kafka " + property + " must be a number of milliseconds: " + value);
    }
  }

  @Override
  public String toString() {
    return "PollingRelayConfig[db="
        + db
        + ", kafka="
        + kafkaClients
        + ", topics="
        + topicPrefix
        + ".<aggregate>, instance="
        + instanceId
        + ", pollInterval="
        + pollInterval
        + ", batchSize="
        + batchSize
        + ", lease="
        + lease
        + "]";
  }
}
