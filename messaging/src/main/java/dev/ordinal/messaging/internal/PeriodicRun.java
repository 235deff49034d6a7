package dev.ordinal.messaging.internal;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a clean-up job now and {@code interval} after the end of each run, on a daemon thread of its
 * own. A run that throws is logged and the next one tries again (a scheduled task that throws would
 * otherwise never run again). Shared by the outbox and inbox retention jobs.
 */
public final class PeriodicRun {
  private static final Logger log = LoggerFactory.getLogger(PeriodicRun.class);

  private final ScheduledExecutorService scheduler;
  private final String name;

  private PeriodicRun(ScheduledExecutorService scheduler, String name) {
    this.scheduler = scheduler;
    this.name = name;
  }

  /**
   * Starts {@code job} (it returns how many rows it handled) on thread {@code name}.
   *
   * @param what how log lines name the job, e.g. "Outbox retention (AFTER_AGE)"
   */
  public static PeriodicRun start(String name, String what, Duration interval, IntSupplier job) {
    ScheduledExecutorService s =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, name);
              t.setDaemon(true);
              return t;
            });
    s.scheduleWithFixedDelay(
        () -> {
          try {
            int n = job.getAsInt();
            if (n > 0) {
              log.debug("{} deleted {} rows", what, n);
            }
          } catch (RuntimeException e) {
            log.warn("{} failed; the next run in {} tries again", what, interval, e);
          }
        },
        0,
        interval.toMillis(),
        TimeUnit.MILLISECONDS);
    return new PeriodicRun(s, name);
  }

  /** Stops scheduling; waits up to {@code timeout} for a run in progress, then interrupts it. */
  public void stop(Duration timeout) {
    scheduler.shutdown();
    try {
      if (!scheduler.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("{} did not stop within {}; interrupting it", name, timeout);
        scheduler.shutdownNow();
      }
    } catch (InterruptedException e) {
      scheduler.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
