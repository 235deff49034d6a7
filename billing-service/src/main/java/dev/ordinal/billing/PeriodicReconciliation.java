package dev.ordinal.billing;

import dev.ordinal.runtime.LoopContext;
import dev.ordinal.runtime.LoopOwner;
import dev.ordinal.runtime.Supervisor;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.slf4j.Logger;

/**
 * What the invoice and the payment reconciliations share: a periodic run on a supervised loop of
 * their own, a warning when a run leaves discrepancies, and each look-up counted as the loop's
 * progress (a long run against a slow outside system is working, not stalled).
 */
abstract class PeriodicReconciliation<T extends PeriodicReconciliation<T>>
    implements AutoCloseable {
  private final LoopOwner loop = new LoopOwner();
  private final MeterRegistry loopRegistry;
  private final String ownLoop;
  private final String warning;
  private final Logger log;
  private volatile Runnable onCheck = () -> {};

  /**
   * @param registry where a loop under a supervisor of its own reports
   * @param ownLoop the loop's name (and service) under a supervisor of its own
   * @param warning logged after a run that left discrepancies, with one {@code {}} for how many
   * @param log the subclass's logger
   */
  PeriodicReconciliation(MeterRegistry registry, String ownLoop, String warning, Logger log) {
    this.loopRegistry = registry;
    this.ownLoop = ownLoop;
    this.warning = warning;
    this.log = log;
  }

  /** One periodic run (what {@code run(false)} asks); how many discrepancies it leaves known. */
  abstract int periodicRun();

  /** A look-up was made: progress for the loop that runs it. */
  final void checked() {
    onCheck.run();
  }

  /**
   * Runs {@link #periodicRun} every {@code interval} as loop {@code loopName} of {@code
   * supervisor}; a failed run (the database down) fails the loop, which runs again after a backoff.
   */
  public final T start(Duration interval, Supervisor supervisor, String loopName) {
    loop.start(supervisor, loopName, ctx -> periodically(ctx, interval));
    return self();
  }

  /** The same under a supervisor of its own (the loop named at construction), until closed. */
  public final T start(Duration interval) {
    loop.startOwn(ownLoop, loopRegistry, ownLoop, ctx -> periodically(ctx, interval));
    return self();
  }

  @SuppressWarnings("unchecked")
  private T self() {
    return (T) this;
  }

  private void periodically(LoopContext ctx, Duration interval) throws InterruptedException {
    onCheck = ctx::healthy;
    while (ctx.running()) {
      int left = periodicRun();
      ctx.healthy();
      if (left > 0) {
        log.warn(warning, left);
      }
      ctx.await(interval);
    }
  }

  @Override
  public void close() {
    loop.close();
  }
}
