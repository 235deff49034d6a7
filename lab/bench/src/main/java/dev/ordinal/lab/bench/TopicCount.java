package dev.ordinal.lab.bench;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** How many records a topic holds: the sum of its partitions' end offsets. */
final class TopicCount implements AutoCloseable {
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final String topic;

  TopicCount(String bootstrap, String topic) {
    this.topic = topic;
    this.consumer =
        new KafkaConsumer<>(
            Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer());
  }

  long records() {
    List<TopicPartition> partitions =
        consumer.partitionsFor(topic).stream()
            .map(p -> new TopicPartition(topic, p.partition()))
            .toList();
    return consumer.endOffsets(partitions).values().stream().mapToLong(Long::longValue).sum();
  }

  @Override
  public void close() {
    consumer.close();
  }
}
