package dev.ordinal.messaging;

import static dev.ordinal.messaging.db.Tables.OUTBOX;

import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.UUID;
import java.util.function.Supplier;
import org.jooq.DSLContext;
import org.jooq.JSONB;

/**
 * Appends events to the outbox table inside the caller's transaction, so the event exists if and
 * only if the business change committed.
 */
public final class Outbox {
  private final Clock clock;
  private final Supplier<UUID> ids;

  public Outbox(Clock clock) {
    this(clock, UUID::randomUUID);
  }

  // visible for testing
  Outbox(Clock clock, Supplier<UUID> ids) {
    this.clock = clock;
    this.ids = ids;
  }

  /**
   * Inserts {@code event} with a new message id, using {@code tx} (the caller's transaction).
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
    return id;
  }
}
