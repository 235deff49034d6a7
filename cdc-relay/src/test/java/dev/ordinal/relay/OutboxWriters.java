package dev.ordinal.relay;

import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.messaging.outbox.OutboxEvent;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;

/**
 * Concurrent writers of outbox events. Each writer owns its aggregates, so the order of one
 * aggregate's events is the order its writer committed them: payload {@code seq} runs 1, 2, 3...
 * per aggregate over committed transactions only. Every {@code rollbackEvery}-th transaction writes
 * events marked {@code phantom} and rolls back.
 */
final class OutboxWriters {
  /** An event that committed. */
  record Committed(String messageId, String aggregateId, int seq) {}

  /** What a run wrote. */
  record Result(List<Committed> committed, List<String> rolledBack) {}

  private OutboxWriters() {}

  /** As {@link #run}, on another thread; the future fails with what the writers threw. */
  static java.util.concurrent.CompletableFuture<Result> inBackground(
      DSLContext dsl, int writers, int total, int rollbackEvery, double ratePerSecond) {
    return java.util.concurrent.CompletableFuture.supplyAsync(
        () -> {
          try {
            return run(dsl, writers, total, rollbackEvery, ratePerSecond);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  /** The message ids of what {@code written} committed. */
  static java.util.Set<String> messageIds(Result written) {
    return written.committed().stream()
        .map(Committed::messageId)
        .collect(java.util.stream.Collectors.toSet());
  }

  /**
   * Asserts that {@code seen} holds exactly the message ids {@code written} committed: nothing
   * lost, nothing extra, nothing rolled back.
   */
  static void assertExactlyCommitted(java.util.Set<String> seen, Result written) {
    org.assertj.core.api.Assertions.assertThat(seen)
        .as("nothing lost, nothing extra")
        .isEqualTo(messageIds(written));
    org.assertj.core.api.Assertions.assertThat(seen)
        .doesNotContainAnyElementsOf(written.rolledBack());
  }

  /**
   * Writes {@code total} committed events from {@code writers} threads, in transactions of 1 to 4
   * events, at most {@code ratePerSecond} events per second in all (0 = as fast as possible).
   */
  static Result run(DSLContext dsl, int writers, int total, int rollbackEvery, double ratePerSecond)
      throws Exception {
    Outbox outbox = new Outbox(Clock.systemUTC());
    List<Committed> committed = Collections.synchronizedList(new ArrayList<>());
    List<String> rolledBack = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    long start = System.nanoTime();
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        int writer = w;
        int share = total / writers + (w < total % writers ? 1 : 0);
        running.add(
            pool.submit(
                () -> {
                  int[] seq = new int[10];
                  int written = 0;
                  int tx = 0;
                  while (written < share) {
                    tx++;
                    int n = Math.min(share - written, ThreadLocalRandom.current().nextInt(1, 5));
                    boolean rollback = rollbackEvery > 0 && tx % rollbackEvery == 0;
                    List<Committed> batch = new ArrayList<>();
                    List<String> phantoms = new ArrayList<>();
                    int[] next = seq.clone();
                    try {
                      dsl.transaction(
                          c -> {
                            for (int i = 0; i < n; i++) {
                              int a = ThreadLocalRandom.current().nextInt(seq.length);
                              String aggregate = "w" + writer + "-a" + a;
                              if (rollback) {
                                phantoms.add(
                                    outbox
                                        .append(
                                            c.dsl(),
                                            new OutboxEvent(
                                                "order",
                                                aggregate,
                                                "Phantom",
                                                "{\"phantom\":true}"))
                                        .toString());
                              } else {
                                int s = ++next[a];
                                UUID id =
                                    outbox.append(
                                        c.dsl(),
                                        new OutboxEvent(
                                            "order", aggregate, "Seq", "{\"seq\":" + s + "}"));
                                batch.add(new Committed(id.toString(), aggregate, s));
                              }
                            }
                            if (rollback) {
                              throw new RolledBack();
                            }
                          });
                    } catch (RolledBack expected) {
                      rolledBack.addAll(phantoms);
                      continue;
                    }
                    System.arraycopy(next, 0, seq, 0, seq.length);
                    committed.addAll(batch);
                    written += n;
                    if (ratePerSecond > 0) {
                      long due = start + (long) (committed.size() / ratePerSecond * 1e9);
                      long wait = due - System.nanoTime();
                      if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                      }
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : running) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return new Result(List.copyOf(committed), List.copyOf(rolledBack));
  }

  static final class RolledBack extends RuntimeException {
    RolledBack() {
      super("rolled back on purpose", null, false, false);
    }
  }
}
