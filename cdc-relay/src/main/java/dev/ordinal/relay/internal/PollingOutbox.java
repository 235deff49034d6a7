package dev.ordinal.relay.internal;

import static dev.ordinal.messaging.db.Tables.OUTBOX;

import dev.ordinal.messaging.outbox.Outbox;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.JSONB;
import org.jooq.Record;
import org.jooq.SelectField;
import org.jooq.impl.DSL;

/**
 * The polling relay's three statements on the outbox table, for one lease owner: claim a batch,
 * mark rows dispatched, count the backlog. Each runs in its own short transaction; nothing here
 * talks to Kafka.
 */
public final class PollingOutbox {
  /** A claimed outbox row, everything the Kafka record needs. */
  public record Row(
      UUID id,
      String aggregateType,
      String aggregateId,
      String eventType,
      String payload,
      OffsetDateTime occurredAt,
      String traceparent) {}

  /**
   * The outbox columns a {@link Row} is read from ({@link #row}), in its order: the event's
   * columns, {@link Outbox#EVENT_COLUMNS}.
   */
  public static final List<SelectField<?>> ROW_COLUMNS = List.copyOf(Outbox.EVENT_COLUMNS);

  /** The {@link Row} of a record holding {@link #ROW_COLUMNS}. */
  public static Row row(Record r) {
    JSONB payload = r.get(OUTBOX.PAYLOAD);
    return new Row(
        r.get(OUTBOX.ID),
        r.get(OUTBOX.AGGREGATE_TYPE),
        r.get(OUTBOX.AGGREGATE_ID),
        r.get(OUTBOX.EVENT_TYPE),
        payload == null ? null : payload.data(),
        r.get(OUTBOX.OCCURRED_AT),
        r.get(OUTBOX.TRACEPARENT));
  }

  private static final Comparator<Row> OCCURRED_ORDER =
      Comparator.comparing(Row::occurredAt).thenComparing(Row::id);

  private final DSLContext dsl;
  private final Clock clock;
  private final String owner;
  private final Duration lease;
  private final int batchSize;

  /**
   * @param dsl a context on the outbox's schema
   * @param owner the lease owner written into claimed rows; unique per relay instance
   */
  public PollingOutbox(DSLContext dsl, Clock clock, String owner, Duration lease, int batchSize) {
    this.dsl = dsl;
    this.clock = clock;
    this.owner = owner;
    this.lease = lease;
    this.batchSize = batchSize;
  }

  /**
   * Leases up to {@code batchSize} undispatched rows whose lease is free (never taken, or expired
   * strictly before now), oldest {@code occurred_at} first, to this owner until {@code now +
   * lease}.
   *
   * @return the claimed rows in {@code occurred_at} order (ties by id)
   */
  public List<Row> claim() {
    OffsetDateTime now = now();
    Condition free =
        OUTBOX
            .DISPATCHED_AT
            .isNull()
            .and(OUTBOX.LEASED_UNTIL.isNull().or(OUTBOX.LEASED_UNTIL.lt(now)));
    List<Row> rows =
        dsl.transactionResult(
            c ->
                c.dsl()
                    .update(OUTBOX)
                    .set(OUTBOX.LEASE_OWNER, owner)
                    .set(OUTBOX.LEASED_UNTIL, now.plus(lease))
                    .where(
                        OUTBOX.ID.in(
                            DSL.select(OUTBOX.ID)
                                .from(OUTBOX)
                                .where(free)
                                .orderBy(OUTBOX.OCCURRED_AT)
                                .limit(batchSize)
                                // rows another instance is claiming right now: skip, don't wait.
                                // A row it claimed and committed meanwhile is re-checked against
                                // "free" by PostgreSQL before locking, so it is not claimed twice.
                                .forUpdate()
                                .skipLocked()))
                    .returningResult(ROW_COLUMNS)
                    .fetch(PollingOutbox::row));
    // RETURNING comes in no particular order
    return rows.stream().sorted(OCCURRED_ORDER).toList();
  }

  /**
   * Sets {@code dispatched_at = now} and clears the lease of those {@code ids} this owner still
   * holds. A row whose lease another instance has taken over meanwhile is left alone.
   *
   * @return the number of rows marked
   */
  public int markDispatched(Collection<UUID> ids) {
    if (ids.isEmpty()) {
      return 0;
    }
    OffsetDateTime now = now();
    return dsl.transactionResult(
        c ->
            c.dsl()
                .update(OUTBOX)
                .set(OUTBOX.DISPATCHED_AT, now)
                .setNull(OUTBOX.LEASE_OWNER)
                .setNull(OUTBOX.LEASED_UNTIL)
                // one array bind value, whatever the batch size
                .where(OUTBOX.ID.eq(DSL.any(ids.toArray(UUID[]::new))))
                .and(OUTBOX.LEASE_OWNER.eq(owner))
                .execute());
  }

  /** Rows not yet dispatched, leased or not (walks the partial index of undispatched rows). */
  public long undispatched() {
    return dsl.fetchCount(OUTBOX, OUTBOX.DISPATCHED_AT.isNull());
  }

  // PostgreSQL keeps microseconds: truncate here so a lease ends exactly where the clock says
  private OffsetDateTime now() {
    return OffsetDateTime.now(clock).truncatedTo(ChronoUnit.MICROS);
  }
}
