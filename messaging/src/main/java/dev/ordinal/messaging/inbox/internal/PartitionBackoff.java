package dev.ordinal.messaging.inbox.internal;

import dev.ordinal.runtime.Backoff;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;

/**
 * When a partition whose record failed may be polled again: each failure in a row of a partition's
 * first unapplied record waits the {@link Backoff}'s next delay (at most {@code unavailableCap}
 * when a server did not answer, so the record goes through as soon as it is back), on an injected
 * clock. The partitions are independent: one waiting holds no other back.
 *
 * <p>Not thread-safe: one poll loop asks.
 */
final class PartitionBackoff {
  private final Backoff policy;
  private final Duration unavailableCap;
  private final LongSupplier nanoTime;

  /** Consecutive failed tries of each partition's first unapplied record. */
  private final Map<TopicPartition, Integer> failures = new HashMap<>();

  /** Partitions waiting out their backoff: when each may be polled again (nanoTime). */
  private final Map<TopicPartition, Long> waiting = new HashMap<>();

  /**
   * @param policy the waits after 1, 2, … failures in a row
   * @param unavailableCap the longest wait when the failure was a server not answering
   * @param nanoTime the monotonic clock, as {@link System#nanoTime}
   */
  PartitionBackoff(Backoff policy, Duration unavailableCap, LongSupplier nanoTime) {
    this.policy = policy;
    this.unavailableCap = unavailableCap;
    this.nanoTime = nanoTime;
  }

  /**
   * Counts a failure of {@code tp}'s record and starts its wait.
   *
   * @param unavailable the failure was a server (the database, the broker) not answering
   * @return how long {@code tp} waits from now
   */
  Duration failed(TopicPartition tp, boolean unavailable) {
    Duration wait = policy.delay(failures.merge(tp, 1, Integer::sum));
    if (unavailable && wait.compareTo(unavailableCap) > 0) {
      wait = unavailableCap;
    }
    waiting.put(tp, nanoTime.getAsLong() + wait.toNanos());
    return wait;
  }

  /** {@code tp}'s record went through (or was dead-lettered): its next failure waits the least. */
  void passed(TopicPartition tp) {
    failures.remove(tp);
  }

  /** The partitions whose wait is over, no longer waiting from now on. */
  List<TopicPartition> due() {
    if (waiting.isEmpty()) {
      return List.of();
    }
    long now = nanoTime.getAsLong();
    List<TopicPartition> due = new ArrayList<>();
    waiting.entrySet().removeIf(e -> now - e.getValue() >= 0 && due.add(e.getKey()));
    return due;
  }

  /** True while {@code tp} waits out its backoff. */
  boolean isWaiting(TopicPartition tp) {
    return waiting.containsKey(tp);
  }

  /** True while some partition's record has failed and not gone through since. */
  boolean anyFailing() {
    return !failures.isEmpty();
  }

  /** Forgets {@code partitions} (revoked or lost). */
  void forget(Collection<TopicPartition> partitions) {
    for (TopicPartition tp : partitions) {
      failures.remove(tp);
      waiting.remove(tp);
    }
  }

  /** Forgets every partition. */
  void clear() {
    failures.clear();
    waiting.clear();
  }
}
