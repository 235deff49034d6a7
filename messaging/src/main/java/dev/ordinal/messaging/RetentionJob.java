package dev.ordinal.messaging;

import dev.ordinal.runtime.Loop;
import dev.ordinal.runtime.LoopOwner;
import dev.ordinal.runtime.Supervisor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.function.Function;
import java.util.function.IntSupplier;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * A job that keeps a table from growing without bound by deleting its expired rows in batches, once
 * ({@link #runOnce}) or every interval on a loop of its own: what the inbox and the outbox
 * retention jobs ({@link dev.ordinal.messaging.inbox.InboxRetention}, {@link
 * dev.ordinal.messaging.outbox.OutboxRetention}) share, their meters, the run of batches and the
 * lifecycle of the loop.
 *
 * <p>Meters, each tagged with the job's one tag: counters {@code ordinal.<table>.retention.deleted}
 * (rows) and {@code ordinal.<table>.retention.batches} (delete statements), and timer {@code
 * ordinal.<table>.retention.runs} tagged {@code outcome} = {@code success} or {@code failure}.
 */
public abstract class RetentionJob implements AutoCloseable {
  /** Called after each batch: the loop's sign of progress when it runs on one. */
  private volatile Runnable onBatch = () -> {};

  private final MeterRegistry registry;
  private final Clock clock;
  private final Counter deleted;
  private final Counter batches;
  private final Timer succeeded;
  private final Timer failed;
  private final LoopOwner owner = new LoopOwner();

  /**
   * @param table {@code inbox} or {@code outbox}: names the meters and their descriptions
   * @param tagKey the tag every meter carries ({@code consumer}, {@code mode}), with {@code
   *     tagValue}
   * @param clock the cutoff of each run is computed from it
   */
  protected RetentionJob(
      String table, String tagKey, String tagValue, MeterRegistry registry, Clock clock) {
    this.registry = registry;
    this.clock = clock;
    String title = Character.toUpperCase(table.charAt(0)) + table.substring(1);
    this.deleted =
        Counter.builder("ordinal." + table + ".retention.deleted")
            .description(title + " rows deleted by the retention job")
            .tag(tagKey, tagValue)
            .register(registry);
    this.batches =
        Counter.builder("ordinal." + table + ".retention.batches")
            .description("Delete statements run by the " + table + " retention job")
            .tag(tagKey, tagValue)
            .register(registry);
    this.succeeded = runs(table, tagKey, tagValue, "success");
    this.failed = runs(table, tagKey, tagValue, "failure");
  }

  private Timer runs(String table, String tagKey, String tagValue, String outcome) {
    return Timer.builder("ordinal." + table + ".retention.runs")
        .description("Runs of the " + table + " retention job, by outcome")
        .tag(tagKey, tagValue)
        .tag("outcome", outcome)
        .register(registry);
  }

  /**
   * One run, timed: takes the cutoff {@code now(clock) - retention}, then runs the batch {@code
   * batchesBefore} gives for it again and again until one deletes fewer than {@code batchSize} rows
   * or the job is closed (after its first batch then), counting each batch and the rows it deleted.
   *
   * @param batchesBefore for the cutoff, one delete batch that returns how many rows it deleted
   * @return the number of rows deleted
   * @throws RuntimeException what a batch threw; the run is timed as a failure
   */
  protected final int run(
      Duration retention, int batchSize, Function<OffsetDateTime, IntSupplier> batchesBefore) {
    Timer.Sample sample = Timer.start(registry);
    try {
      IntSupplier batch = batchesBefore.apply(OffsetDateTime.now(clock).minus(retention));
      int total = 0;
      int n;
      do {
        n = batch.getAsInt();
        batches.increment();
        deleted.increment(n);
        total += n;
        onBatch.run();
      } while (n == batchSize && !owner.closed());
      sample.stop(succeeded);
      return total;
    } catch (RuntimeException e) {
      sample.stop(failed);
      throw e;
    }
  }

  /**
   * Deletes, in a transaction of its own, the at most {@code limit} rows of {@code table} in {@code
   * scope} that are {@code expired}, oldest by {@code oldestFirst} first, identified by {@code
   * key}; rows another transaction has locked (another replica's job) are skipped, not waited for.
   *
   * @return the number of rows deleted
   */
  protected static <K> int deleteOldest(
      DSLContext dsl,
      Table<?> table,
      Condition scope,
      Field<K> key,
      Condition expired,
      Field<?> oldestFirst,
      int limit) {
    return dsl.transactionResult(
        c ->
            c.dsl()
                .deleteFrom(table)
                .where(scope)
                .and(
                    key.in(
                        DSL.select(key)
                            .from(table)
                            .where(expired)
                            .orderBy(oldestFirst)
                            .limit(limit)
                            // another replica's job deleting the same rows: skip, don't wait
                            .forUpdate()
                            .skipLocked()))
                .execute());
  }

  /**
   * Deletes every row that is past retention now, batch after batch, until a batch deletes fewer
   * than the batch size. After {@link #close}, a run stops after its first batch.
   *
   * @return the number of rows deleted
   * @throws org.jooq.exception.DataAccessException when a batch fails; the batches before it stay
   *     deleted, and calling again resumes where it stopped
   */
  public abstract int runOnce();

  /**
   * Runs {@link #runOnce} now and {@code interval} after the end of each run, as loop {@code
   * loopName} of {@code supervisor}. A failed run is logged and counted; the loop runs again after
   * a backoff.
   *
   * @throws IllegalStateException when already started or closed
   */
  protected final void startLoop(Supervisor supervisor, String loopName, Duration interval) {
    owner.start(supervisor, loopName, loop(interval));
  }

  /**
   * {@link Loop#every} of {@link #runOnce}, each batch deleted a sign of progress: a run through a
   * large backlog is working, not stalled ({@link dev.ordinal.runtime.LoopState#STALLED}).
   */
  private Loop loop(Duration interval) {
    return ctx -> {
      onBatch = ctx::healthy;
      Loop.every(interval, this::runOnce).run(ctx);
    };
  }

  /**
   * As {@link #startLoop}, under a supervisor of its own for {@code service}, closed with the job.
   *
   * @throws IllegalStateException when already started or closed
   */
  protected final void startOwnLoop(String service, String loopName, Duration interval) {
    owner.startOwn(service, registry, loopName, loop(interval));
  }

  /**
   * Marks the job started with nothing to run.
   *
   * @throws IllegalStateException when already started or closed
   */
  protected final void startIdle() {
    owner.startIdle();
  }

  /** Rows deleted by this job's meters since they were registered. */
  public final long deleted() {
    return (long) deleted.count();
  }

  /** Delete statements run (including the last, short one of each run). */
  public final long batches() {
    return (long) batches.count();
  }

  /** Runs that ended with an error. */
  public final long failedRuns() {
    return failed.count();
  }

  /**
   * Stops scheduling runs. A run in progress stops after its current batch; this waits for it up to
   * {@link dev.ordinal.runtime.Supervisor#STOP_TIMEOUT}, then interrupts it. Idempotent.
   */
  @Override
  public final void close() {
    owner.close();
  }
}
