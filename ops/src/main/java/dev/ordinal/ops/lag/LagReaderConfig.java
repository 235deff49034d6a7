package dev.ordinal.ops.lag;

import dev.ordinal.messaging.ConfigChecks;
import dev.ordinal.messaging.ConfigurationException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * Settings of a {@link LagReader}. Checked when built: a wrong value throws {@link
 * ConfigurationException} naming the field.
 *
 * @param bootstrapServers the Kafka cluster, {@code host:port[,host:port]}
 * @param kafka client properties by Kafka's own names (security, SASL, {@code isolation.level},
 *     ...), given to both the admin client and the record reader; never {@code group.id}, {@code
 *     enable.auto.commit} or {@code bootstrap.servers}
 * @param requestTimeout how long each admin request (groups, offsets) may take; null means {@link
 *     #DEFAULT_REQUEST_TIMEOUT}
 * @param recordTimeout how long to wait for the next records of the lagging partitions, for the
 *     time lag; a partition whose record did not come in time has an unknown time lag; null means
 *     {@link #DEFAULT_RECORD_TIMEOUT}
 */
public record LagReaderConfig(
    String bootstrapServers,
    Map<String, String> kafka,
    Duration requestTimeout,
    Duration recordTimeout) {
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);
  public static final Duration DEFAULT_RECORD_TIMEOUT = Duration.ofSeconds(5);

  /** Properties the reader owns: it must never join a group or commit. */
  static final Set<String> RESERVED =
      Set.of(
          ConsumerConfig.GROUP_ID_CONFIG,
          ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
          ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG);

  public LagReaderConfig {
    if (bootstrapServers == null || bootstrapServers.isBlank()) {
      throw new ConfigurationException(
          "bootstrapServers must name the Kafka cluster (host:port[,host:port])");
    }
    kafka = kafka == null ? Map.of() : Map.copyOf(new TreeMap<>(kafka));
    for (String reserved : RESERVED) {
      if (kafka.containsKey(reserved)) {
        throw new ConfigurationException(
            "kafka."
                + reserved
                + " cannot be set for the lag reader: it reads without joining a group and never"
                + " commits; remove it");
      }
    }
    requestTimeout =
        ConfigChecks.positive("requestTimeout", requestTimeout, DEFAULT_REQUEST_TIMEOUT);
    recordTimeout = ConfigChecks.positive("recordTimeout", recordTimeout, DEFAULT_RECORD_TIMEOUT);
  }

  /** No extra client properties, default timeouts. */
  public static LagReaderConfig of(String bootstrapServers) {
    return new LagReaderConfig(bootstrapServers, Map.of(), null, null);
  }
}
