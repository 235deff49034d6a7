package dev.ordinal.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

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
}
