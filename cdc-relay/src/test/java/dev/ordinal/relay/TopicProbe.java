package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.testkit.TestNamespace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
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
    List<ConsumerRecord<String, String>> seen = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = probe(ns)) {
      consumer.subscribe(List.of(topic));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                consumer.poll(Duration.ofMillis(100)).forEach(seen::add);
                return seen.size() >= expected;
              });
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      long recordsInTopic =
          consumer.endOffsets(partitions).values().stream().mapToLong(Long::longValue).sum();
      assertThat(recordsInTopic).isEqualTo(expected);
    }
    return seen;
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
