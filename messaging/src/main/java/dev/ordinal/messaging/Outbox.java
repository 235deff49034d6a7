package dev.ordinal.messaging;

import static dev.ordinal.messaging.db.Tables.OUTBOX;

import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Supplier;
import org.jooq.DSLContext;
import org.jooq.JSONB;

/**
 * Appends events to the outbox table inside the caller's transaction, so the event exists if and
 * only if the business change committed.
 *
 * <p>In {@link OutboxRetentionMode#DELETE_ON_WRITE} the row is deleted again right after the
 * insert, in the same transaction: the CDC relay still publishes the event (it reads the insert
 * from the WAL and ignores the delete), and the table stays empty. Use that mode only with the CDC
 * relay, and only once it is streaming; in any other mode the row is kept for {@link
 * OutboxRetention}.
 */
public final class Outbox {
  private final Clock clock;
  private final Supplier<UUID> ids;
  private final boolean deleteOnWrite;

  /** An outbox that keeps its rows (for a polling relay, or for {@link OutboxRetention}). */
  public Outbox(Clock clock) {
    this(clock, OutboxRetentionMode.AFTER_AGE);
  }

  /**
   * An outbox whose rows are deleted on write when {@code retention} is {@link
   * OutboxRetentionMode#DELETE_ON_WRITE}, and kept otherwise.
   */
  public Outbox(Clock clock, OutboxRetentionMode retention) {
    this(clock, UUID::randomUUID, retention);
  }

  // visible for testing
  Outbox(Clock clock, Supplier<UUID> ids) {
    this(clock, ids, OutboxRetentionMode.AFTER_AGE);
  }

  // visible for testing
  Outbox(Clock clock, Supplier<UUID> ids, OutboxRetentionMode retention) {
    this.clock = clock;
    this.ids = ids;
    this.deleteOnWrite =
        Objects.requireNonNull(retention, "retention") == OutboxRetentionMode.DELETE_ON_WRITE;
  }

  /**
   * Inserts {@code event} with a new message id, using {@code tx} (the caller's transaction); in
   * {@link OutboxRetentionMode#DELETE_ON_WRITE} deletes the row again with the same {@code tx}.
   *
   * @return the message id, which every re-send of this event will carry
   */
  public UUID append(DSLContext tx, OutboxEvent event) {
    UUID id = ids.get();
    tx.insertInto(OUTBOX)
        .set(OUTBOX.ID, id)
        .set(OUTBOX.AGGREGATE_TYPE, event.aggregateType())
        .set(OUTBOX.AGGREGATE_ID, event.aggregateId())
        .set(OUTBOX.EVENT_TYPE, event.eventType())
        .set(OUTBOX.PAYLOAD, JSONB.valueOf(event.payload()))
        .set(OUTBOX.OCCURRED_AT, OffsetDateTime.now(clock))
        .set(OUTBOX.TRACEPARENT, event.traceparent())
        .execute();
    if (deleteOnWrite) {
      // the insert is already in the WAL for the relay; the delete only keeps the table empty
      tx.deleteFrom(OUTBOX).where(OUTBOX.ID.eq(id)).execute();
    }
    return id;
  }
}
