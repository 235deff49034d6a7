package dev.ordinal.messaging.outbox;

import static dev.ordinal.messaging.db.Tables.OUTBOX;
import static dev.ordinal.messaging.db.Tables.OUTBOX_RELAYED;

import dev.ordinal.messaging.RetentionJob;
import dev.ordinal.runtime.Supervisor;
import io.micrometer.core.instrument.MeterRegistry;
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
 *   <li>In {@link OutboxRetentionMode#AFTER_AGE} a row is deleted only when the CDC relays have
 *       published it durably as well: written ({@code written_at}, the database's clock) more than
 *       {@link #IN_FLIGHT_MARGIN} before the least {@code relayed_through} of {@code
 *       outbox_relayed}, which each relay moves when it stores its position. While no relay has
 *       published, nothing is deleted; a relay stopped for longer than the retention keeps every
 *       row it has not published, so {@code relay republish} can still send them.
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
public final class OutboxRetention extends RetentionJob {
  private static final Logger log = LoggerFactory.getLogger(OutboxRetention.class);

  /**
   * How long before the last commit a relay published a row must have been written to be deleted: a
   * transaction in flight then wrote its rows before that commit and committed after it.
   */
  public static final Duration IN_FLIGHT_MARGIN = Duration.ofMinutes(1);

  private final OutboxRetentionConfig config;
  private final DSLContext dsl;

  /**
   * @param dsl a context on the schema holding the outbox; each batch runs in its own transaction
   *     on it
   * @param clock the cutoff is computed from it
   */
  public OutboxRetention(
      OutboxRetentionConfig config, DSLContext dsl, MeterRegistry registry, Clock clock) {
    super("outbox", "mode", config.mode().name(), registry, clock);
    this.config = config;
    this.dsl = dsl;
  }

  /**
   * Deletes every row that is past retention now, batch after batch, until a batch deletes fewer
   * than {@code batchSize} rows. After {@link #close}, a run stops after its first batch.
   *
   * @return the number of rows deleted
   * @throws org.jooq.exception.DataAccessException when a batch fails; the batches before it stay
   *     deleted, and calling again resumes where it stopped
   */
  @Override
  public int runOnce() {
    if (config.mode() == OutboxRetentionMode.DELETE_ON_WRITE) {
      return 0;
    }
    return run(
        config.retention(),
        config.batchSize(),
        cutoff -> {
          Condition published = published();
          if (published == null) {
            return () -> 0;
          }
          Condition expired = expired(cutoff).and(published);
          return () ->
              deleteOldest(
                  dsl,
                  OUTBOX,
                  DSL.noCondition(),
                  OUTBOX.ID,
                  expired,
                  OUTBOX.OCCURRED_AT,
                  config.batchSize());
        });
  }

  /**
   * In after-age mode, the rows the relays have published durably ({@link #IN_FLIGHT_MARGIN} before
   * the least {@code relayed_through}); null when no relay has published yet. No condition in the
   * other modes.
   */
  private Condition published() {
    if (config.mode() != OutboxRetentionMode.AFTER_AGE) {
      return DSL.noCondition();
    }
    OffsetDateTime relayed =
        dsl.select(DSL.min(OUTBOX_RELAYED.RELAYED_THROUGH))
            .from(OUTBOX_RELAYED)
            .fetchOne(0, OffsetDateTime.class);
    if (relayed == null) {
      log.debug("No relay has published from this outbox yet: no row is deleted");
      return null;
    }
    return OUTBOX.WRITTEN_AT.lt(relayed.minus(IN_FLIGHT_MARGIN));
  }

  private Condition expired(OffsetDateTime cutoff) {
    return switch (config.mode()) {
      case AFTER_AGE -> OUTBOX.OCCURRED_AT.lt(cutoff);
      // "is not null" also lets the planner use the partial index on dispatched rows
      case AFTER_DISPATCH -> OUTBOX.DISPATCHED_AT.isNotNull().and(OUTBOX.DISPATCHED_AT.lt(cutoff));
      case DELETE_ON_WRITE -> throw new IllegalStateException("nothing to delete in " + config);
    };
  }

  /**
   * Runs {@link #runOnce} now and then {@code interval} after the end of each run, under a
   * supervisor of its own (loop {@code outbox-retention}). A failed run is logged and counted; the
   * loop runs again after a backoff.
   *
   * @throws IllegalStateException when already started or closed
   */
  public synchronized OutboxRetention start() {
    if (config.mode() == OutboxRetentionMode.DELETE_ON_WRITE) {
      return startNothing();
    }
    startOwnLoop("outbox-retention", "outbox-retention", config.interval());
    return this;
  }

  /**
   * As {@link #start()}, as loop {@code loopName} of {@code supervisor}. In {@link
   * OutboxRetentionMode#DELETE_ON_WRITE} nothing is started (nothing is left to delete).
   */
  public synchronized OutboxRetention start(Supervisor supervisor, String loopName) {
    if (config.mode() == OutboxRetentionMode.DELETE_ON_WRITE) {
      return startNothing();
    }
    startLoop(supervisor, loopName, config.interval());
    return this;
  }

  private OutboxRetention startNothing() {
    startIdle();
    log.info("Outbox rows are deleted as they are written; no retention runs are scheduled");
    return this;
  }
}
