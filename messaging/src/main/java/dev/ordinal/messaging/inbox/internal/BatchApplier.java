package dev.ordinal.messaging.inbox.internal;

import dev.ordinal.messaging.inbox.internal.RecordApplier.Applied;
import dev.ordinal.messaging.inbox.internal.RecordApplier.Outcome;
import dev.ordinal.runtime.LoopContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Applies one poll's records on the workers: grouped by partition and key, each group in offset
 * order (records of one key are never applied out of order or at the same time), the priority
 * topics' groups submitted first. A group stops at its first record to retry: the later ones of
 * that key wait, since their order matters.
 */
final class BatchApplier {
  private final RecordApplier records;
  private final ExecutorService workers;
  private final List<String> priorityTopics;

  /** A batch failed and no record has been applied since (read and cleared by the workers). */
  private volatile boolean failedSinceApplied;

  BatchApplier(RecordApplier records, ExecutorService workers, List<String> priorityTopics) {
    this.records = records;
    this.workers = workers;
    this.priorityTopics = priorityTopics;
  }

  /** A batch failed: the loop is healthy again at the next record that goes through. */
  void failed() {
    failedSinceApplied = true;
  }

  void reset() {
    failedSinceApplied = false;
  }

  /**
   * Applies a poll's records and returns, per partition, the first record that must be retried. The
   * loop is healthy again as soon as one record goes through after a failed batch (its servers
   * answer again), not only when the batch ends: a long batch after a transient fault must not keep
   * a working consumer unready.
   */
  Map<TopicPartition, Failure> apply(
      Map<TopicPartition, List<ConsumerRecord<String, String>>> batch, LoopContext ctx)
      throws InterruptedException {
    Map<TopicPartition, Failure> firstFailed = new ConcurrentHashMap<>();
    List<Future<?>> running = new ArrayList<>();
    for (List<ConsumerRecord<String, String>> group : groups(batch).values()) {
      running.add(workers.submit(() -> applyGroup(group, firstFailed, ctx)));
    }
    for (Future<?> f : running) {
      try {
        f.get();
      } catch (ExecutionException e) {
        throw new IllegalStateException("An inbox worker failed", e.getCause());
      }
    }
    return firstFailed;
  }

  private Map<List<Object>, List<ConsumerRecord<String, String>>> groups(
      Map<TopicPartition, List<ConsumerRecord<String, String>>> batch) {
    List<TopicPartition> partitions = new ArrayList<>(batch.keySet());
    partitions.sort(
        (a, b) ->
            Boolean.compare(
                !priorityTopics.contains(a.topic()), !priorityTopics.contains(b.topic())));
    Map<List<Object>, List<ConsumerRecord<String, String>>> groups = new LinkedHashMap<>();
    for (TopicPartition tp : partitions) {
      for (ConsumerRecord<String, String> r : batch.get(tp)) {
        groups
            .computeIfAbsent(List.of(tp, Objects.toString(r.key())), k -> new ArrayList<>())
            .add(r);
      }
    }
    return groups;
  }

  private void applyGroup(
      List<ConsumerRecord<String, String>> group,
      Map<TopicPartition, Failure> firstFailed,
      LoopContext ctx) {
    for (ConsumerRecord<String, String> r : group) {
      Applied a = records.apply(r);
      if (a.outcome() != Outcome.RETRY && failedSinceApplied) {
        failedSinceApplied = false;
        ctx.healthy();
      }
      if (a.outcome() == Outcome.RETRY) {
        // later records of this key wait: their order matters
        firstFailed.merge(
            new TopicPartition(r.topic(), r.partition()),
            new Failure(r, a.cause(), ErrorKinds.isPermanent(a.cause())),
            (x, y) -> x.offset() <= y.offset() ? x : y);
        return;
      }
    }
  }
}
