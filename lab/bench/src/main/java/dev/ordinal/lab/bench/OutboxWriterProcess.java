package dev.ordinal.lab.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.messaging.outbox.OutboxEvent;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * Outbox writers in a JVM of their own, for the relay's capacity in {@code bench relay}: {@code
 * threads} writers commit transactions of {@code rowsPerTx} rows ({@link Outbox#append}, as the
 * bench's insert rates), either flat out or open loop at a fixed rate (transaction i is due at
 * start + i / rate, whatever happened before). The child prints {@code DONE <rows> <nanos>} at the
 * end; the bench reads it.
 */
final class OutboxWriterProcess {
  static final String DONE = "DONE";

  private OutboxWriterProcess() {}

  /** The child: url user schema rowsPerTx threads rowsPerSecond (0 = flat out) seconds. */
  public static void main(String[] a) throws Exception {
    DatabaseSettings db = new DatabaseSettings(a[0], a[1], ChildJvm.password()).withSchema(a[2]);
    int rowsPerTx = Integer.parseInt(a[3]);
    int threads = Integer.parseInt(a[4]);
    double rowsPerSecond = Double.parseDouble(a[5]);
    Duration length = Duration.ofSeconds(Long.parseLong(a[6]));
    Outbox outbox = new Outbox(Clock.systemUTC());
    LongAdder committed = new LongAdder();
    AtomicLong next = new AtomicLong();
    ExecutorService writers = Executors.newFixedThreadPool(threads);
    try (HikariDataSource pool = db.pool("bench-writer", threads)) {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      long start = System.nanoTime();
      long end = start + length.toNanos();
      double txPeriod = rowsPerSecond <= 0 ? 0 : 1e9 * rowsPerTx / rowsPerSecond;
      List<Future<?>> running = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        running.add(
            writers.submit(
                () -> {
                  while (true) {
                    long i = next.getAndIncrement();
                    long due = start + (long) (i * txPeriod);
                    if (due >= end || System.nanoTime() >= end) {
                      return null;
                    }
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                      TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    dsl.transaction(
                        c -> {
                          for (int r = 0; r < rowsPerTx; r++) {
                            outbox.append(
                                c.dsl(),
                                new OutboxEvent(
                                    RelayBench.AGGREGATE,
                                    "bench-" + ThreadLocalRandom.current().nextInt(1000),
                                    "OrderPlaced",
                                    RelayBench.PAYLOAD));
                          }
                        });
                    committed.add(rowsPerTx);
                  }
                }));
      }
      for (Future<?> f : running) {
        f.get();
      }
      System.out.println(DONE + " " + committed.sum() + " " + (System.nanoTime() - start));
      System.out.flush();
    } finally {
      writers.shutdownNow();
    }
  }

  /** What a run committed: rows, and over how long. */
  record Done(long rows, Duration took) {
    double rowsPerSecond() {
      return rows / (took.toNanos() / 1e9);
    }
  }

  /** Runs the child to its end; {@code core} pins it ({@code taskset -c}) when not null. */
  static Done run(
      DatabaseSettings db,
      String schema,
      int rowsPerTx,
      int threads,
      double rowsPerSecond,
      Duration length,
      String core)
      throws IOException, InterruptedException {
    Process p =
        ChildJvm.builder(
                OutboxWriterProcess.class,
                core,
                List.of(),
                db,
                "bench-writer-" + schema,
                List.of(
                    schema,
                    Integer.toString(rowsPerTx),
                    Integer.toString(threads),
                    Double.toString(rowsPerSecond),
                    Long.toString(length.toSeconds())))
            .start();
    return ChildJvm.readUntilDone(
        p,
        "The writer process",
        f ->
            f[0].equals(DONE) && f.length == 3
                ? Optional.of(
                    new Done(Long.parseLong(f[1]), Duration.ofNanos(Long.parseLong(f[2]))))
                : Optional.empty());
  }
}
