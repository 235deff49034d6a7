package dev.ordinal.monitor;

import dev.ordinal.messaging.kafka.Topics;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Runs {@link InvariantTopology} in a {@link KafkaStreams} instance.
 *
 * <p>{@code kafka} holds the Kafka Streams properties under their own names ({@code
 * bootstrap.servers} is required; {@code state.dir}, {@code processing.guarantee} and the like are
 * passed through); {@code application.id} comes from the config. {@link #start()} creates the input
 * and alerts topics that do not exist yet ({@link Topics#DEFAULT_PARTITIONS} partitions). Not
 * restartable: after {@link #close()} make a new one.
 */
public final class InvariantMonitor implements AutoCloseable {
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

  private final MonitorConfig config;
  private final Properties properties;
  private final MeterRegistry meters;
  private KafkaStreams streams;

  /**
   * @throws IllegalArgumentException when {@code kafka} has no {@code bootstrap.servers}
   */
  public InvariantMonitor(MonitorConfig config, Map<String, ?> kafka, MeterRegistry meters) {
    this.config = Objects.requireNonNull(config, "config");
    this.meters = Objects.requireNonNull(meters, "meters");
    this.properties = new Properties();
    properties.putAll(kafka);
    if (properties.get(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG) == null) {
      throw new IllegalArgumentException(
          "kafka properties need " + StreamsConfig.BOOTSTRAP_SERVERS_CONFIG);
    }
    properties.put(StreamsConfig.APPLICATION_ID_CONFIG, config.applicationId());
  }

  /** Creates missing topics and starts processing in the background. */
  public synchronized void start() {
    if (streams != null) {
      throw new IllegalStateException("already started");
    }
    String bootstrap = properties.get(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG).toString();
    for (String topic :
        new String[] {
          config.orderTopic(), config.orderBulkTopic(), config.invoiceTopic(), config.alertsTopic()
        }) {
      Topics.ensure(bootstrap, topic, Topics.DEFAULT_PARTITIONS);
    }
    streams = new KafkaStreams(InvariantTopology.build(config, meters), properties);
    streams.start();
  }

  /** The Kafka Streams state, or {@code CREATED} before {@link #start()}. */
  public synchronized KafkaStreams.State state() {
    return streams == null ? KafkaStreams.State.CREATED : streams.state();
  }

  @Override
  public synchronized void close() {
    if (streams != null) {
      streams.close(CLOSE_TIMEOUT);
    }
  }
}
