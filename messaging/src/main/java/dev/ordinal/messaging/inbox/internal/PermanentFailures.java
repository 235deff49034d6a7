package dev.ordinal.messaging.inbox.internal;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Per partition, the record failing with a permanent error and how often it did in a row: the count
 * that sends it to the dead-letter topic. Not thread-safe: one poll loop counts.
 */
final class PermanentFailures {
  /** Per partition: {offset, tries}. */
  private final Map<TopicPartition, long[]> runs = new HashMap<>();

  /** How often the record at {@code offset} of {@code tp} has now failed with a permanent error. */
  long failed(TopicPartition tp, long offset) {
    long[] run = runs.get(tp);
    if (run == null || run[0] != offset) {
      run = new long[] {offset, 0};
      runs.put(tp, run);
    }
    return ++run[1];
  }

  /** {@code tp}'s record went through or was dead-lettered. */
  void passed(TopicPartition tp) {
    runs.remove(tp);
  }

  void forget(Collection<TopicPartition> partitions) {
    partitions.forEach(runs::remove);
  }

  void clear() {
    runs.clear();
  }
}
