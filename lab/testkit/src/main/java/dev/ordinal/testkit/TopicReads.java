package dev.ordinal.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reading a test's topics to an exact count: poll a consumer (subscribed or assigned by the caller)
 * until enough records came, then compare with what the partitions hold.
 */
public final class TopicReads {
  private static final Duration POLL = Duration.ofMillis(100);

  private TopicReads() {}

  /**
   * Polls {@code consumer} until at least {@code expected} records came, and returns all those read
   * (possibly more than {@code expected}, in the order polled).
   *
   * @throws AssertionError if fewer came within {@code atMost}
   */
  public static <K, V> List<ConsumerRecord<K, V>> pollAtLeast(
      Consumer<K, V> consumer, int expected, Duration atMost) {
    List<ConsumerRecord<K, V>> seen = new ArrayList<>();
    long deadline = System.nanoTime() + atMost.toNanos();
    while (true) {
      consumer.poll(POLL).forEach(seen::add);
      if (seen.size() >= expected) {
        return seen;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError(
            "only " + seen.size() + " of " + expected + " records came within " + atMost);
      }
    }
  }

  /** Every partition of {@code topics}, as {@code consumer}'s metadata lists them. */
  public static List<TopicPartition> partitions(
      Consumer<?, ?> consumer, Collection<String> topics) {
    List<TopicPartition> partitions = new ArrayList<>();
    for (String topic : topics) {
      consumer.partitionsFor(topic).stream()
          .map(p -> new TopicPartition(topic, p.partition()))
          .forEach(partitions::add);
    }
    return partitions;
  }

  /**
   * The sum of the end offsets of {@code partitions}: the records they hold, for topics written
   * without transactions and never truncated.
   */
  public static long endOffsetSum(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
    return consumer.endOffsets(partitions).values().stream().mapToLong(Long::longValue).sum();
  }

  /** As {@link #endOffsetSum}, over every partition of {@code topics}. */
  public static long recordsIn(Consumer<?, ?> consumer, Collection<String> topics) {
    return endOffsetSum(consumer, partitions(consumer, topics));
  }

  /**
   * The one record {@code topic} holds, read from its start by a new consumer of {@code group} on
   * {@code bootstrap}.
   *
   * @throws AssertionError if none came within {@code atMost}, or the topic holds more than one
   */
  public static ConsumerRecord<String, String> onlyRecord(
      String bootstrap, String topic, String group, Duration atMost) {
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(
            Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, group,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
            new StringDeserializer(),
            new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      List<ConsumerRecord<String, String>> seen = pollAtLeast(consumer, 1, atMost);
      long held = recordsIn(consumer, List.of(topic));
      if (held != 1 || seen.size() != 1) {
        throw new AssertionError(
            topic + " holds " + held + " records and " + seen.size() + " were read, not 1");
      }
      return seen.get(0);
    }
  }

  /**
   * Every record {@code partitions} hold now, from their start, read by a consumer of no group on
   * {@code bootstrap}.
   *
   * @throws AssertionError if they were not all read within {@code atMost}
   */
  public static List<ConsumerRecord<String, String>> readToEnd(
      String bootstrap, List<TopicPartition> partitions, Duration atMost) {
    List<ConsumerRecord<String, String>> records = new ArrayList<>();
    try (KafkaConsumer<String, String> reader = TestKafka.consumer(bootstrap)) {
      reader.assign(partitions);
      reader.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = reader.endOffsets(partitions);
      long deadline = System.nanoTime() + atMost.toNanos();
      while (!partitions.stream().allMatch(tp -> reader.position(tp) >= end.get(tp))) {
        if (System.nanoTime() - deadline > 0) {
          throw new AssertionError(
              "only " + records.size() + " records of " + partitions + " came within " + atMost);
        }
        reader.poll(POLL).forEach(records::add);
      }
    }
    return records;
  }
}
