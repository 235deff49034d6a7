package dev.ordinal.relay;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * A steady writer on a {@link TeamOutbox}: one event every 4 ms, round-robin over {@code
 * aggregates} parcels, each parcel's events numbered 0, 1, 2... in the order written (one writer,
 * so also the order committed). Reads back what Kafka holds as {@link Arrivals}.
 */
final class TeamTraffic implements AutoCloseable {
  /**
   * What a topic holds against what was written.
   *
   * @param records every record read
   * @param seen the distinct message ids
   * @param copies records beyond the first of their message id
   * @param outOfOrder per parcel, first copies not in the order written
   */
  record Arrivals(int records, Set<String> seen, long copies, List<String> outOfOrder) {}

  private final Map<String, Integer> seqOf = new ConcurrentHashMap<>();
  private final AtomicInteger written = new AtomicInteger();
  private final AtomicBoolean writing = new AtomicBoolean(true);
  private final Thread writer;
  private final long startedAt = System.nanoTime();

  /** Starts writing. */
  TeamTraffic(TeamOutbox table, int aggregates) {
    writer =
        new Thread(
            () -> {
              int[] next = new int[aggregates];
              for (int i = 0; writing.get(); i++) {
                int a = i % aggregates;
                String id = table.insert("parcel-" + a, "{\"seq\":" + next[a] + "}");
                seqOf.put(id, next[a]++);
                written.incrementAndGet();
                LockSupport.parkNanos(4_000_000);
              }
            },
            "team-traffic-writer");
    writer.start();
  }

  int written() {
    return written.get();
  }

  /** Waits until {@code n} more events than now are written. */
  void awaitMore(int n) {
    int from = written.get();
    await().atMost(Duration.ofSeconds(120)).until(() -> written.get() >= from + n);
  }

  /** Stops writing; the message ids of every event written. */
  Set<String> stop() throws InterruptedException {
    writing.set(false);
    writer.join(10_000);
    System.out.printf(
        "team traffic: %d events in %.1f s%n",
        written.get(), (System.nanoTime() - startedAt) / 1e9);
    return seqOf.keySet();
  }

  /** The records against what was written: copies, and order by first copies per parcel. */
  Arrivals arrivals(List<ConsumerRecord<String, String>> records) {
    Set<String> seen = new HashSet<>();
    Map<String, Integer> lastSeq = new HashMap<>();
    List<String> outOfOrder = new ArrayList<>();
    for (ConsumerRecord<String, String> r : records) {
      String id = TopicReader.messageId(r);
      if (!seen.add(id)) {
        continue; // a copy: consumers skip it
      }
      int seq = seqOf.get(id);
      Integer last = lastSeq.put(r.key(), seq);
      if (last != null && seq != last + 1) {
        outOfOrder.add(r.key() + ": " + last + " then " + seq);
      }
      if (last == null && seq != 0) {
        outOfOrder.add(r.key() + ": starts at " + seq);
      }
    }
    return new Arrivals(records.size(), seen, records.size() - seen.size(), outOfOrder);
  }

  @Override
  public void close() throws InterruptedException {
    stop();
  }
}
