package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.testkit.TestNamespace;
import dev.ordinal.testkit.TopicReads;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads a topic from the earliest offset in a consumer group of the namespace's ("probe"). */
final class TopicProbe {
  private TopicProbe() {}

  /**
   * Reads {@code topic} until {@code expected} records came (30 s at most), asserts that the topic
   * holds exactly {@code expected} records, and returns those read.
   */
  static List<ConsumerRecord<String, String>> readExactly(
      TestNamespace ns, String topic, int expected) {
    try (KafkaConsumer<String, String> consumer = probe(ns)) {
      consumer.subscribe(List.of(topic));
      List<ConsumerRecord<String, String>> seen =
          TopicReads.pollAtLeast(consumer, expected, Duration.ofSeconds(30));
      assertThat(TopicReads.recordsIn(consumer, List.of(topic))).isEqualTo(expected);
      return seen;
    }
  }

  private static KafkaConsumer<String, String> probe(TestNamespace ns) {
    return new KafkaConsumer<>(
        Map.<String, Object>of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, ns.stack().kafkaBootstrap(),
            ConsumerConfig.GROUP_ID_CONFIG, ns.group("probe"),
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
        new StringDeserializer(),
        new StringDeserializer());
  }
}
