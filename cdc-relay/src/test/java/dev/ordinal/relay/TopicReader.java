package dev.ordinal.relay;

import dev.ordinal.messaging.kafka.MessageHeaders;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads a whole topic from the beginning, without a consumer group. */
final class TopicReader implements AutoCloseable {
  private final KafkaConsumer<String, String> consumer;
  private final List<ConsumerRecord<String, String>> records = new ArrayList<>();
  private final String topic;
  private List<TopicPartition> partitions;

  TopicReader(String bootstrap, String topic) {
    this.topic = topic;
    this.consumer =
        new KafkaConsumer<>(
            Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                5000),
            new StringDeserializer(),
            new StringDeserializer());
  }

  /** Polls until {@code done} holds for what was read so far, or the wait ends. */
  List<ConsumerRecord<String, String>> readUntil(
      Predicate<List<ConsumerRecord<String, String>>> done, Duration atMost) {
    long deadline = System.nanoTime() + atMost.toNanos();
    while (!done.test(records) && System.nanoTime() < deadline) {
      if (partitions == null) {
        var infos = consumer.partitionsFor(topic, Duration.ofSeconds(5));
        if (infos == null || infos.isEmpty()) {
          continue;
        }
        partitions = infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
      }
      consumer.poll(Duration.ofMillis(200)).forEach(records::add);
    }
    return records;
  }

  /** Polls until every message id in {@code ids} has been read, or the wait ends. */
  List<ConsumerRecord<String, String>> readUntilAll(
      java.util.Collection<String> ids, Duration atMost) {
    java.util.Set<String> missing = new java.util.HashSet<>(ids);
    return readUntil(
        r -> {
          r.forEach(x -> missing.remove(messageId(x)));
          return missing.isEmpty();
        },
        atMost);
  }

  /** Records in the topic now (sum of end offsets): compare with what was read. */
  long endOffsetsSum() {
    return consumer.endOffsets(partitions).values().stream().mapToLong(Long::longValue).sum();
  }

  static long distinctMessageIds(List<ConsumerRecord<String, String>> records) {
    return records.stream().map(TopicReader::messageId).distinct().count();
  }

  static String messageId(ConsumerRecord<String, String> r) {
    return MessageHeaders.get(r.headers(), MessageHeaders.MESSAGE_ID).orElse(null);
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(5));
  }
}
