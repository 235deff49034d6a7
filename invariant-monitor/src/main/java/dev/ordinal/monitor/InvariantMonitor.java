package dev.ordinal.monitor;

import dev.ordinal.messaging.Preflight;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.messaging.kafka.KafkaRefusals;
import dev.ordinal.messaging.kafka.Topics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;

/**
 * Runs {@link InvariantTopology} in a {@link KafkaStreams} instance.
 *
 * <p>Its Kafka Streams properties are made by {@link KafkaClients#streamsProperties}: the user's
 * client properties, then {@code streams} (Kafka Streams properties under their own names: {@code
 * state.dir}, {@code commit.interval.ms} and the like), then the servers, the client id and {@code
 * application.id} from the config. {@link #start()} creates the input and alerts topics that do not
 * exist yet ({@link Topics#DEFAULT_PARTITIONS} partitions). Not restartable: after {@link #close()}
 * make a new one.
 */
public final class InvariantMonitor implements AutoCloseable {
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

  private final MonitorConfig config;
  private final KafkaClients clients;
  private final Properties properties;
  private final MeterRegistry meters;
  private KafkaStreams streams;
  private KafkaStreamsMetrics streamsMeters;
  private volatile Throwable failure;

  /**
   * @param clients the Kafka cluster and the user's client properties
   * @param streams Kafka Streams properties the caller sets, over the user's
   */
  public InvariantMonitor(
      MonitorConfig config, KafkaClients clients, Map<String, ?> streams, MeterRegistry meters) {
    this.config = Objects.requireNonNull(config, "config");
    this.clients = Objects.requireNonNull(clients, "clients");
    this.meters = Objects.requireNonNull(meters, "meters");
    this.properties = new Properties();
    properties.putAll(clients.streamsProperties(config.applicationId(), "streams", streams));
  }

  /** Creates missing topics and starts processing in the background. */
  public synchronized void start() {
    if (streams != null) {
      throw new IllegalStateException("already started");
    }
    for (String topic :
        new String[] {
          config.orderTopic(), config.orderBulkTopic(), config.invoiceTopic(), config.alertsTopic()
        }) {
      Topics.ensure(clients, topic, Topics.DEFAULT_PARTITIONS);
    }
    streams = new KafkaStreams(InvariantTopology.build(config, meters), properties);
    streams.setUncaughtExceptionHandler(
        e -> {
          failure = e;
          return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
    // the Streams instance's metrics and its clients' (kafka_stream_*, kafka_consumer_*,
    // kafka_producer_*), until it is closed
    streamsMeters = new KafkaStreamsMetrics(streams);
    streamsMeters.bindTo(meters);
    streams.start();
  }

  /**
   * Why Kafka Streams stopped, worded: for a missing ACL, the one sentence naming the resource and
   * the operation the monitor needs on it (READ on its group and the topics it watches, WRITE on
   * the alerts topic, READ and WRITE on its internal topics); null while nothing failed.
   */
  public synchronized RuntimeException failure() {
    Throwable f = failure;
    if (f == null) {
      return null;
    }
    return KafkaRefusals.notAuthorized(clients, f, this::needs)
        .<RuntimeException>map(e -> e)
        .orElseGet(
            () -> new IllegalStateException("Kafka Streams stopped: " + Preflight.firstLine(f), f));
  }

  /** The ACL operation the monitor needs on {@code resource} ({@code topic t}, {@code group g}). */
  private String needs(String resource) {
    if (resource.equals("topic " + config.alertsTopic())) {
      return "WRITE";
    }
    if (resource.startsWith("topic " + config.applicationId() + "-")) {
      return "READ and WRITE";
    }
    return "READ";
  }

  /** The Kafka Streams state, or {@code CREATED} before {@link #start()}. */
  public synchronized KafkaStreams.State state() {
    return streams == null ? KafkaStreams.State.CREATED : streams.state();
  }

  @Override
  public synchronized void close() {
    if (streams != null) {
      streams.close(CLOSE_TIMEOUT);
      streamsMeters.close();
    }
  }
}
