package dev.ordinal.ops.lag;

import dev.ordinal.messaging.slot.SlotReader;
import dev.ordinal.messaging.slot.SlotReading;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads lag, judges it and publishes it, once ({@link #sampleOnce}) or every interval on a thread
 * of its own ({@link #start}): {@link LagReader} → {@link LagStatusTracker} → {@link LagMetrics},
 * with the replication slots beside when a {@link SlotReader} is given.
 *
 * <p>A failed read is counted ({@code ordinal.consumer.lag.sample.failures}), handed to the failure
 * callback, and the next interval reads again. A failed slot read is logged and the report goes out
 * without slots: the consumer lag does not depend on the database.
 */
public final class LagSampler implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LagSampler.class);

  private final LagReader reader;
  private final LagQuery query;
  private final LagStatusTracker tracker;
  private final LagMetrics metrics;
  private final SlotReader slots;
  private final AtomicReference<LagReport> latest = new AtomicReference<>();
  private ScheduledExecutorService scheduler;

  /**
   * @param metrics the binder to update, bound to a registry; null for none
   * @param slots the relay's replication slots to report beside; null for none
   */
  public LagSampler(
      LagReader reader,
      LagQuery query,
      LagStatusTracker tracker,
      LagMetrics metrics,
      SlotReader slots) {
    this.reader = reader;
    this.query = query;
    this.tracker = tracker;
    this.metrics = metrics;
    this.slots = slots;
  }

  /**
   * One sample: read, judge, publish.
   *
   * @throws dev.ordinal.messaging.ConfigurationException when the query names a group or topic that
   *     does not exist
   * @throws LagReadException when Kafka does not answer in time
   */
  public LagReport sampleOnce() {
    LagReport report;
    try {
      report = tracker.update(reader.read(query)).withSlots(readSlots());
    } catch (RuntimeException e) {
      if (metrics != null) {
        metrics.failed();
      }
      throw e;
    }
    if (metrics != null) {
      metrics.update(report);
    }
    latest.set(report);
    return report;
  }

  private List<SlotReading> readSlots() {
    if (slots == null) {
      return List.of();
    }
    try {
      return slots.read();
    } catch (SQLException e) {
      log.warn("Could not read the replication slots: {}", e.getMessage());
      return List.of();
    }
  }

  /** The last successful report, if any. */
  public Optional<LagReport> latest() {
    return Optional.ofNullable(latest.get());
  }

  /**
   * Samples now and then {@code interval} after the end of each sample, on a daemon thread named
   * {@code lag-sampler}, until {@link #close}.
   *
   * @param onReport called with each report, on the sampler's thread
   * @param onFailure called with each failed read, on the sampler's thread
   * @throws IllegalStateException when already started
   */
  public synchronized LagSampler start(
      Duration interval, Consumer<LagReport> onReport, Consumer<RuntimeException> onFailure) {
    if (scheduler != null) {
      throw new IllegalStateException("already started");
    }
    scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "lag-sampler");
              t.setDaemon(true);
              return t;
            });
    scheduler.scheduleWithFixedDelay(
        () -> {
          try {
            onReport.accept(sampleOnce());
          } catch (RuntimeException e) {
            // a scheduled task that throws is never run again: report, and read again next time
            log.debug("Lag sample failed", e);
            onFailure.accept(e);
          }
        },
        0,
        interval.toMillis(),
        TimeUnit.MILLISECONDS);
    return this;
  }

  /** Stops sampling; waits up to 10 s for a sample in progress. Does not close the reader. */
  @Override
  public synchronized void close() {
    if (scheduler == null) {
      return;
    }
    scheduler.shutdown();
    try {
      if (!scheduler.awaitTermination(10, TimeUnit.SECONDS)) {
        scheduler.shutdownNow();
      }
    } catch (InterruptedException e) {
      scheduler.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
