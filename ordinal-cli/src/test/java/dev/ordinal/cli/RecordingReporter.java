package dev.ordinal.cli;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.MetricsReporter;

/**
 * A Kafka metrics reporter that records the client id of every client configured with it: named in
 * a client properties file ({@code metric.reporters}), it shows which clients that file reached.
 * Kafka configures it in each admin client, producer, consumer and Kafka Streams client it makes.
 */
public final class RecordingReporter implements MetricsReporter {
  private static final Set<String> CLIENT_IDS = ConcurrentHashMap.newKeySet();

  /** The client ids configured with this reporter since {@link #forget()}. */
  static Set<String> clientIds() {
    return Set.copyOf(CLIENT_IDS);
  }

  static void forget() {
    CLIENT_IDS.clear();
  }

  @Override
  public void configure(Map<String, ?> configs) {
    Object id = configs.get("client.id");
    if (id != null) {
      CLIENT_IDS.add(id.toString());
    }
  }

  @Override
  public void init(List<KafkaMetric> metrics) {}

  @Override
  public void metricChange(KafkaMetric metric) {}

  @Override
  public void metricRemoval(KafkaMetric metric) {}

  @Override
  public void close() {}
}
