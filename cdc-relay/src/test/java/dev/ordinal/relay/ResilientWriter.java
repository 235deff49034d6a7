package dev.ordinal.relay;

import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.messaging.outbox.OutboxEvent;
import java.time.Clock;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.jooq.DSLContext;

/**
 * One outbox event per transaction at a fixed rate (open loop), on through database failures: a
 * transaction that fails is counted and not retried. Records the ids whose commit returned, and
 * those committed after {@link #marked} was set (e.g. after a failover).
 */
final class ResilientWriter implements Runnable {
  final DSLContext dsl;
  final long intervalNanos;
  final Set<String> committed = ConcurrentHashMap.newKeySet();
  final Set<String> committedSinceMarkIds = ConcurrentHashMap.newKeySet();
  final AtomicInteger committedSinceMark = new AtomicInteger();
  final AtomicInteger failed = new AtomicInteger();
  final AtomicBoolean marked = new AtomicBoolean();
  final AtomicBoolean stop = new AtomicBoolean();

  ResilientWriter(DSLContext dsl, int perSecond) {
    this.dsl = dsl;
    this.intervalNanos = 1_000_000_000L / perSecond;
  }

  @Override
  public void run() {
    Outbox outbox = new Outbox(Clock.systemUTC());
    long n = 0;
    long next = System.nanoTime();
    while (!stop.get()) {
      long i = n++;
      boolean after = marked.get();
      try {
        String id =
            dsl.transactionResult(
                c ->
                    outbox
                        .append(
                            c.dsl(),
                            new OutboxEvent("order", "o-" + (i % 50), "Seq", "{\"i\":" + i + "}"))
                        .toString());
        committed.add(id);
        if (after) {
          committedSinceMarkIds.add(id);
          committedSinceMark.incrementAndGet();
        }
      } catch (RuntimeException e) {
        failed.incrementAndGet();
      }
      next += intervalNanos;
      long wait = next - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
    }
  }
}
