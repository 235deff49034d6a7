package dev.ordinal.messaging.outbox;

import static dev.ordinal.messaging.db.Tables.OUTBOX;

import dev.ordinal.runtime.Loop;
import dev.ordinal.runtime.Supervisor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the outbox table from growing without bound: deletes the rows its {@link
 * OutboxRetentionMode} says are no longer needed, in small batches, either once ({@link #runOnce})
 * or every {@link OutboxRetentionConfig#interval() interval} on its own thread ({@link #start}).
 *
 * <p>What the caller can rely on:
 *
 * <ul>
 *   <li>Each batch is one {@code DELETE} of at most {@code batchSize} rows, oldest {@code
 *       occurred_at} first, in its own short transaction: a run never holds locks on more than one
 *       batch, and a failure keeps the batches already committed.
 *   <li>The cutoff is {@code now(clock) - retention}, taken once at the start of a run; a row is
 *       deleted only when its timestamp is strictly before it. In {@link
 *       OutboxRetentionMode#AFTER_DISPATCH} a row without {@code dispatched_at} is never deleted.
 *   <li>In {@link OutboxRetentionMode#DELETE_ON_WRITE} there is nothing to delete: {@link #runOnce}
 *       returns 0 without touching the database, and {@link #start} schedules nothing.
 *   <li>Several instances (one per service replica) may run against the same table: rows another
 *       instance is deleting are skipped, not waited for.
 * </ul>
 *
 * <p>Metrics, tagged with {@code mode}: counters {@code ordinal.outbox.retention.deleted} (rows)
 * and {@code ordinal.outbox.retention.batches} (delete statements), and timer {@code
 * ordinal.outbox.retention.runs} tagged {@code outcome} = {@code success} or {@code failure}.
 * Instances that share a registry and a mode share these meters.
 */
public final class OutboxRetention implements AutoCloseable {
  /** How long {@link #close} waits for a run in progress to finish its batch. */
  public static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

  private static final Logger log = LoggerFactory.getLogger(OutboxRetention.class);

  private final OutboxRetentionConfig config;
  private final DSLContext dsl;
  private final MeterRegistry registry;
  private final Clock clock;
  private final Counter deleted;
  private final Counter batches;
  private final Timer succeeded;
  private final Timer failed;
  private boolean started;
  private Supervisor.SupervisedLoop loop;
  private Supervisor ownSupervisor;
  private volatile boolean closed;

  /**
   * @param dsl a context on the schema holding the outbox; each batch runs in its own transaction
   *     on it
   * @param clock the cutoff is computed from it
   */
  public OutboxRetention(
      OutboxRetentionConfig config, DSLContext dsl, MeterRegistry registry, Clock clock) {
    this.config = config;
    this.dsl = dsl;
    this.registry = registry;
    this.clock = clock;
    String mode = config.mode().name();
    this.deleted =
        Counter.builder("ordinal.outbox.retention.deleted")
            .description("Outbox rows deleted by the retention job")
            .tag("mode", mode)
            .register(registry);
    this.batches =
        Counter.builder("ordinal.outbox.retention.batches")
            .description("Delete statements run by the outbox retention job")
            .tag("mode", mode)
            .register(registry);
    this.succeeded = runs(mode, "success");
    this.failed = runs(mode, "failure");
  }

  private Timer runs(String mode, String outcome) {
    return Timer.builder("ordinal.outbox.retention.runs")
        .description("Runs of the outbox retention job, by outcome")
        .tag("mode", mode)
        .tag("outcome", outcome)
        .register(registry);
  }

  /**
   * Deletes every row that is past retention now, batch after batch, until a batch deletes fewer
   * than {@code batchSize} rows. After {@link #close}, a run stops after its first batch.
   *
   * @return the number of rows deleted
   * @throws org.jooq.exception.DataAccessException when a batch fails; the batches before it stay
   *     deleted, and calling again resumes where it stopped
   */
  public int runOnce() {
    if (config.mode() == OutboxRetentionMode.DELETE_ON_WRITE) {
      return 0;
    }
    Timer.Sample sample = Timer.start(registry);
    try {
      Condition expired = expired(OffsetDateTime.now(clock).minus(config.retention()));
      int total = 0;
      int n;
      do {
        n = deleteBatch(expired);
        total += n;
      } while (n == config.batchSize() && !closed);
      sample.stop(succeeded);
      return total;
    } catch (RuntimeException e) {
      sample.stop(failed);
      throw e;
    }
  }

  private Condition expired(OffsetDateTime cutoff) {
    return switch (config.mode()) {
      case AFTER_AGE -> OUTBOX.OCCURRED_AT.lt(cutoff);
      // "is not null" also lets the planner use the partial index on dispatched rows
      case AFTER_DISPATCH -> OUTBOX.DISPATCHED_AT.isNotNull().and(OUTBOX.DISPATCHED_AT.lt(cutoff));
      case DELETE_ON_WRITE -> throw new IllegalStateException("nothing to delete in " + config);
    };
  }

  private int deleteBatch(Condition expired) {
    int n =
        dsl.transactionResult(
            c ->
                c.dsl()
                    .deleteFrom(OUTBOX)
                    .where(
                        OUTBOX.ID.in(
                            DSL.select(OUTBOX.ID)
                                .from(OUTBOX)
                                .where(expired)
                                .orderBy(OUTBOX.OCCURRED_AT)
                                .limit(config.batchSize())
                                // another replica's job deleting the same rows: skip, don't wait
                                .forUpdate()
                                .skipLocked()))
                    .execute());
    batches.increment();
    deleted.increment(n);
    return n;
  }

  /**
   * Runs {@link #runOnce} now and then {@code interval} after the end of each run, under a
   * supervisor of its own (loop {@code outbox-retention}). A failed run is logged and counted; the
   * loop runs again after a backoff.
   *
   * @throws IllegalStateException when already started or closed
   */
  public synchronized OutboxRetention start() {
    ownSupervisor = new Supervisor("outbox-retention", registry);
    return start(ownSupervisor, "outbox-retention");
  }

  /**
   * As {@link #start()}, as loop {@code loopName} of {@code supervisor}. In {@link
   * OutboxRetentionMode#DELETE_ON_WRITE} nothing is started (nothing is left to delete).
   */
  public synchronized OutboxRetention start(Supervisor supervisor, String loopName) {
    if (started || closed) {
      throw new IllegalStateException("already started or closed");
    }
    started = true;
    if (config.mode() == OutboxRetentionMode.DELETE_ON_WRITE) {
      log.info("Outbox rows are deleted as they are written; no retention runs are scheduled");
      return this;
    }
    loop = supervisor.start(loopName, Loop.every(config.interval(), this::runOnce));
    return this;
  }

  /** Rows deleted by this job's meters since they were registered. */
  public long deleted() {
    return (long) deleted.count();
  }

  /** Delete statements run (including the last, short one of each run). */
  public long batches() {
    return (long) batches.count();
  }

  /** Runs that ended with an error. */
  public long failedRuns() {
    return failed.count();
  }

  /**
   * Stops scheduling runs. A run in progress stops after its current batch; this waits up to {@link
   * #CLOSE_TIMEOUT} for it. Idempotent.
   */
  @Override
  public void close() {
    Supervisor.SupervisedLoop l;
    Supervisor own;
    synchronized (this) {
      closed = true;
      l = loop;
      own = ownSupervisor;
    }
    if (l != null) {
      l.close();
    }
    if (own != null) {
      own.close();
    }
  }
}
