package dev.ordinal.order;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.HdrHistogram.Recorder;

/**
 * Places N orders at a fixed rate, open loop: order i is due at {@code start + i / rate} whether or
 * not earlier ones have finished, and its latency is measured from that due time, so a slow system
 * shows as latency instead of a quietly lower rate (no coordinated omission).
 */
public final class BulkOrderProducer {
  /** Where an order goes: the write function, or the HTTP API. */
  @FunctionalInterface
  public interface Sink {
    /** Places the order; throws when it was not placed. */
    void place(NewOrder order) throws Exception;
  }

  /** Figures of a run; latencies in microseconds. */
  public record Result(
      long placed, long failed, Duration elapsed, long p50Micros, long p99Micros, long maxMicros) {
    public double ratePerSecond() {
      return placed / Math.max(1e-9, elapsed.toNanos() / 1e9);
    }
  }

  /** Progress, reported about once a second. */
  public record Progress(long due, long placed, long failed) {}

  private final Sink sink;
  private final int concurrency;
  private final Channel channel;
  private final String series;

  public BulkOrderProducer(Sink sink, int concurrency, Channel channel, String series) {
    if (concurrency < 1) {
      throw new IllegalArgumentException("concurrency must be at least 1");
    }
    this.sink = sink;
    this.concurrency = concurrency;
    this.channel = channel;
    this.series = series;
  }

  /** Places {@code count} orders at {@code ratePerSecond}; returns when all have finished. */
  public Result run(long count, double ratePerSecond, Consumer<Progress> progress)
      throws InterruptedException {
    if (count < 1 || ratePerSecond <= 0) {
      throw new IllegalArgumentException("count and rate must be positive");
    }
    Recorder latencies = new Recorder(3);
    AtomicLong placed = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    ExecutorService workers = Executors.newFixedThreadPool(concurrency);
    long intervalNanos = (long) (1e9 / ratePerSecond);
    long start = System.nanoTime();
    long nextReport = start + TimeUnit.SECONDS.toNanos(1);
    try {
      for (long i = 0; i < count; i++) {
        long due = start + i * intervalNanos;
        long wait;
        while ((wait = due - System.nanoTime()) > 0) {
          TimeUnit.NANOSECONDS.sleep(Math.min(wait, TimeUnit.MILLISECONDS.toNanos(50)));
        }
        if (System.nanoTime() >= nextReport) {
          progress.accept(new Progress(i, placed.get(), failed.get()));
          nextReport += TimeUnit.SECONDS.toNanos(1);
        }
        NewOrder order = order(i);
        workers.execute(
            () -> {
              try {
                sink.place(order);
                placed.incrementAndGet();
              } catch (Exception e) {
                failed.incrementAndGet();
              } finally {
                latencies.recordValue(Math.max(0, (System.nanoTime() - due) / 1000));
              }
            });
      }
    } finally {
      workers.shutdown();
    }
    while (!workers.awaitTermination(1, TimeUnit.SECONDS)) {
      progress.accept(new Progress(count, placed.get(), failed.get()));
    }
    Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
    progress.accept(new Progress(count, placed.get(), failed.get()));
    var h = latencies.getIntervalHistogram();
    return new Result(
        placed.get(),
        failed.get(),
        elapsed,
        h.getValueAtPercentile(50),
        h.getValueAtPercentile(99),
        h.getMaxValue());
  }

  private NewOrder order(long i) {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    return new NewOrder(
        "bulk-customer-" + (i % 1000),
        "EUR",
        channel,
        series,
        List.of(
            new OrderLine(
                "SKU-" + r.nextInt(1, 500),
                r.nextInt(1, 5),
                BigDecimal.valueOf(r.nextInt(100, 10_000), 2))));
  }
}
