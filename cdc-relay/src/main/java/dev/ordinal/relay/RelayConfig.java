package dev.ordinal.relay;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.DatabaseSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Settings of the CDC relay, validated once.
 *
 * @param db the database holding the outbox; the role needs REPLICATION and SELECT on the outbox
 * @param kafkaBootstrap Kafka bootstrap servers
 * @param outboxSchema schema of the {@code outbox} table
 * @param topicPrefix events go to {@code <topicPrefix>.<aggregate_type>}
 * @param slotName the logical replication slot (one active relay per slot)
 * @param publicationName the publication on the outbox table
 * @param offsetFile where the engine stores the last LSN it relayed
 * @param offsetFlushInterval how often that LSN is stored (and the slot released); a crash re-sends
 *     at most the events relayed during one interval
 * @param pollInterval how long the engine waits on an empty replication stream
 * @param maxBatchSize most records handed to the producer in one batch
 * @param dropSlotOnStop drop the slot on a clean stop (tests only: the next start misses events)
 * @param debezium pass-through Debezium properties, with their own names, applied last
 * @param kafka pass-through Kafka producer properties, with their own names, applied last
 */
public record RelayConfig(
    DatabaseSettings db,
    String kafkaBootstrap,
    String outboxSchema,
    String topicPrefix,
    String slotName,
    String publicationName,
    Path offsetFile,
    Duration offsetFlushInterval,
    Duration pollInterval,
    int maxBatchSize,
    boolean dropSlotOnStop,
    Map<String, String> debezium,
    Map<String, Object> kafka) {

  public static final String DEFAULT_SLOT = "ordinal_outbox";
  public static final String DEFAULT_PUBLICATION = "ordinal_outbox";
  public static final Duration DEFAULT_OFFSET_FLUSH_INTERVAL = Duration.ofSeconds(1);
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(10);
  public static final int DEFAULT_MAX_BATCH_SIZE = 512;

  private static final Pattern SLOT = Pattern.compile("[a-z0-9_]{1,63}");
  private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,200}");

  public RelayConfig {
    Objects.requireNonNull(db, "db");
    Objects.requireNonNull(offsetFile, "offsetFile");
    if (kafkaBootstrap == null || kafkaBootstrap.isBlank()) {
      throw new ConfigurationException(
          "The relay needs Kafka bootstrap servers: set ORDINAL_KAFKA_BOOTSTRAP.");
    }
    if (outboxSchema == null || outboxSchema.isBlank()) {
      throw new ConfigurationException("The relay needs the schema of the outbox table.");
    }
    if (topicPrefix == null || !TOPIC.matcher(topicPrefix).matches()) {
      throw new ConfigurationException(
          "topicPrefix must be letters, digits, '.', '_' or '-': " + topicPrefix);
    }
    slotName = slotName == null ? DEFAULT_SLOT : slotName;
    publicationName = publicationName == null ? DEFAULT_PUBLICATION : publicationName;
    if (!SLOT.matcher(slotName).matches()) {
      throw new ConfigurationException(
          "slotName must be 1 to 63 lower-case letters, digits or '_': " + slotName);
    }
    if (!SLOT.matcher(publicationName).matches()) {
      throw new ConfigurationException(
          "publicationName must be 1 to 63 lower-case letters, digits or '_': " + publicationName);
    }
    offsetFlushInterval =
        offsetFlushInterval == null ? DEFAULT_OFFSET_FLUSH_INTERVAL : offsetFlushInterval;
    pollInterval = pollInterval == null ? DEFAULT_POLL_INTERVAL : pollInterval;
    if (offsetFlushInterval.isNegative() || offsetFlushInterval.isZero()) {
      throw new ConfigurationException("offsetFlushInterval must be positive");
    }
    if (pollInterval.isNegative() || pollInterval.isZero()) {
      throw new ConfigurationException("pollInterval must be positive");
    }
    maxBatchSize = maxBatchSize <= 0 ? DEFAULT_MAX_BATCH_SIZE : maxBatchSize;
    debezium = debezium == null ? Map.of() : Map.copyOf(debezium);
    kafka = kafka == null ? Map.of() : Map.copyOf(kafka);
  }

  /** Defaults for everything but where things are. */
  public static RelayConfig of(
      DatabaseSettings db,
      String kafkaBootstrap,
      String outboxSchema,
      String topicPrefix,
      Path offsetFile) {
    return new RelayConfig(
        db,
        kafkaBootstrap,
        outboxSchema,
        topicPrefix,
        null,
        null,
        offsetFile,
        null,
        null,
        0,
        false,
        null,
        null);
  }

  public RelayConfig withSlot(String slot, String publication, boolean dropOnStop) {
    return new RelayConfig(
        db,
        kafkaBootstrap,
        outboxSchema,
        topicPrefix,
        slot,
        publication,
        offsetFile,
        offsetFlushInterval,
        pollInterval,
        maxBatchSize,
        dropOnStop,
        debezium,
        kafka);
  }

  @Override
  public String toString() {
    return "RelayConfig[db="
        + db
        + ", kafka="
        + kafkaBootstrap
        + ", outbox="
        + outboxSchema
        + ".outbox, topics="
        + topicPrefix
        + ".<aggregate>, slot="
        + slotName
        + ", publication="
        + publicationName
        + "]";
  }
}
