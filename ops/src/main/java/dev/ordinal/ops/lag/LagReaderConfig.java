package dev.ordinal.ops.lag;

import dev.ordinal.messaging.ConfigChecks;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.kafka.KafkaClients;
import java.time.Duration;
import java.util.Objects;

/**
 * Settings of a {@link LagReader}. Checked when built: a wrong value throws {@link
 * ConfigurationException} naming the field.
 *
 * @param clients the Kafka cluster and the user's client properties (security, SASL, ...): the
 *     admin client and the record reader are made by it; the reader never joins a group or commits,
 *     whatever they say ({@link KafkaClients} refuses {@code group.id} and {@code
 *     enable.auto.commit=true})
 * @param requestTimeout how long each admin request (groups, offsets) may take; null means {@link
 *     #DEFAULT_REQUEST_TIMEOUT}
 * @param recordTimeout how long to wait for the next records of the lagging partitions, for the
 *     time lag; a partition whose record did not come in time has an unknown time lag; null means
 *     {@link #DEFAULT_RECORD_TIMEOUT}
 */
public record LagReaderConfig(
    KafkaClients clients, Duration requestTimeout, Duration recordTimeout) {
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_RECORD_TIMEOUT = Duration.ofSeconds(5);

  public LagReaderConfig {
    Objects.requireNonNull(clients, "clients");
    requestTimeout =
        ConfigChecks.positive("requestTimeout", requestTimeout, DEFAULT_REQUEST_TIMEOUT);
    recordTimeout = ConfigChecks.positive("recordTimeout", recordTimeout, DEFAULT_RECORD_TIMEOUT);
  }

  /** No client properties of the user's, default timeouts. */
  public static LagReaderConfig of(String bootstrapServers) {
    if (bootstrapServers == null || bootstrapServers.isBlank()) {
      throw new ConfigurationException(
          "bootstrapServers must name the Kafka cluster (host:port[,host:port])");
    }
    return of(KafkaClients.of(bootstrapServers));
  }

  /** Default timeouts. */
  public static LagReaderConfig of(KafkaClients clients) {
    return new LagReaderConfig(clients, null, null);
  }

  /** The Kafka bootstrap servers. */
  public String bootstrapServers() {
    return clients.bootstrapServers();
  }
}
