package dev.ordinal.messaging.outbox;

import static dev.ordinal.messaging.db.Tables.OUTBOX;

import dev.ordinal.runtime.Tracing;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Supplier;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.InsertResultStep;
import org.jooq.JSONB;
import org.jooq.Record1;
import org.jooq.Table;
import org.jooq.impl.DSL;

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
  /**
   * The largest event the relay's producer sends with Kafka's default {@code max.request.size} (1
   * MiB), leaving room for the record's framing: payload, key and header values together.
   */
  public static final int DEFAULT_MAX_EVENT_BYTES = 1_000_000;

  /**
   * The outbox columns that make up an event, in this order: message id, aggregate type, aggregate
   * id, event type, payload, occurred-at time, traceparent, tracestate. Each event is written to
   * exactly these (the other columns are the relays' bookkeeping), so a reader of whole events
   * selects these.
   */
  public static final List<Field<?>> EVENT_COLUMNS =
      List.of(
          OUTBOX.ID,
          OUTBOX.AGGREGATE_TYPE,
          OUTBOX.AGGREGATE_ID,
          OUTBOX.EVENT_TYPE,
          OUTBOX.PAYLOAD,
          OUTBOX.OCCURRED_AT,
          OUTBOX.TRACEPARENT,
          OUTBOX.TRACESTATE);

  /** Header names, the message id and the occurred-at time, which every event carries. */
  static final int FIXED_HEADER_BYTES = 160;

  private final Clock clock;
  private final Supplier<UUID> ids;
  private final boolean deleteOnWrite;
  private final int maxEventBytes;

  /** An outbox that keeps its rows (for a polling relay, or for {@link OutboxRetention}). */
  public Outbox(Clock clock) {
    this(clock, OutboxRetentionMode.AFTER_AGE);
  }

  /**
   * An outbox whose rows are deleted on write when {@code retention} is {@link
   * OutboxRetentionMode#DELETE_ON_WRITE}, and kept otherwise.
   */
  public Outbox(Clock clock, OutboxRetentionMode retention) {
    this(clock, UUID::randomUUID, retention, DEFAULT_MAX_EVENT_BYTES);
  }

  /**
   * As {@link #Outbox(Clock, OutboxRetentionMode)}, refusing events larger than {@code
   * maxEventBytes} (match it to the relay producer's {@code max.request.size} when that is raised).
   */
  public Outbox(Clock clock, OutboxRetentionMode retention, int maxEventBytes) {
    this(clock, UUID::randomUUID, retention, maxEventBytes);
  }

  // visible for testing
  Outbox(Clock clock, Supplier<UUID> ids) {
    this(clock, ids, OutboxRetentionMode.AFTER_AGE, DEFAULT_MAX_EVENT_BYTES);
  }

  // visible for testing
  Outbox(Clock clock, Supplier<UUID> ids, OutboxRetentionMode retention, int maxEventBytes) {
    if (maxEventBytes < 1) {
      throw new IllegalArgumentException("maxEventBytes must be positive, not " + maxEventBytes);
    }
    this.maxEventBytes = maxEventBytes;
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
   * @throws EventTooLargeException when the event is larger than the relay can publish; nothing is
   *     written, and the caller's transaction should roll back (an event that can never be
   *     published would stop the relay)
   */
  public UUID append(DSLContext tx, OutboxEvent event) {
    Prepared p = prepare(tx, event);
    p.insert().execute();
    if (deleteOnWrite) {
      // the insert is already in the WAL for the relay; the delete only keeps the table empty
      tx.deleteFrom(OUTBOX).where(OUTBOX.ID.eq(p.id())).execute();
    }
    return p.id();
  }

  /**
   * An event's insert, not executed, with its new message id: for a caller that writes its business
   * rows and the event in ONE statement (data-modifying CTEs), so the whole write is one round
   * trip. In {@link OutboxRetentionMode#DELETE_ON_WRITE} ({@link #deletesOnWrite()}) the caller
   * must also delete the row again in the same transaction ({@link #deleteAgain}); a row cannot be
   * inserted and deleted by one statement.
   *
   * @throws EventTooLargeException as {@link #append}; nothing is built
   */
  public Prepared prepare(DSLContext ctx, OutboxEvent event) {
    String tracestate = tracestate(event);
    checkSize(event, tracestate);
    UUID id = ids.get();
    return new Prepared(
        id,
        ctx.insertInto(OUTBOX)
            .set(OUTBOX.ID, id)
            .set(OUTBOX.AGGREGATE_TYPE, event.aggregateType())
            .set(OUTBOX.AGGREGATE_ID, event.aggregateId())
            .set(OUTBOX.EVENT_TYPE, event.eventType())
            .set(OUTBOX.PAYLOAD, JSONB.valueOf(event.payload()))
            .set(OUTBOX.OCCURRED_AT, OffsetDateTime.now(clock))
            .set(OUTBOX.TRACEPARENT, event.traceparent())
            .set(OUTBOX.TRACESTATE, tracestate)
            .returningResult(OUTBOX.ID));
  }

  /**
   * As {@link #prepare}, for an event that exists only if a row of {@code source} does: the insert
   * selects from {@code source} (a data-modifying CTE's name, say an {@code UPDATE ... RETURNING}
   * that found its row or not), one event per row, and takes the aggregate type from {@code
   * aggregateType}, an expression over {@code source}'s columns (the topic then follows the row).
   * {@code event}'s own aggregate type is only counted in its size, so give the longest one.
   *
   * @throws EventTooLargeException as {@link #append}; nothing is built
   */
  public Prepared prepareFrom(
      DSLContext ctx, OutboxEvent event, Table<?> source, Field<String> aggregateType) {
    String tracestate = tracestate(event);
    checkSize(event, tracestate);
    UUID id = ids.get();
    return new Prepared(
        id,
        ctx.insertInto(OUTBOX, EVENT_COLUMNS)
            .select(
                DSL.select(
                        DSL.val(id, OUTBOX.ID),
                        aggregateType,
                        DSL.val(event.aggregateId(), OUTBOX.AGGREGATE_ID),
                        DSL.val(event.eventType(), OUTBOX.EVENT_TYPE),
                        DSL.val(JSONB.valueOf(event.payload()), OUTBOX.PAYLOAD),
                        DSL.val(OffsetDateTime.now(clock), OUTBOX.OCCURRED_AT),
                        DSL.val(event.traceparent(), OUTBOX.TRACEPARENT),
                        DSL.val(tracestate, OUTBOX.TRACESTATE))
                    .from(source))
            .returningResult(OUTBOX.ID));
  }

  private void checkSize(OutboxEvent event, String tracestate) {
    long size =
        FIXED_HEADER_BYTES
            + utf8(event.payload())
            + utf8(event.aggregateId())
            + utf8(event.aggregateType())
            + utf8(event.eventType())
            + utf8(event.traceparent())
            + utf8(tracestate);
    if (size > maxEventBytes) {
      throw new EventTooLargeException(
          "The "
              + event.eventType()
              + " event of "
              + event.aggregateType()
              + " "
              + event.aggregateId()
              + " is "
              + size
              + " bytes, more than the "
              + maxEventBytes
              + " the relay can publish; nothing was written: send less in the event (a"
              + " reference to the data instead of the data)");
    }
  }

  /**
   * The event's tracestate: its own, else the current span's when the event's traceparent is that
   * span's (the usual case: the work under way writes the event), else none; cut to the column's
   * {@link Tracing#MAX_STORED_TRACESTATE} characters by whole list members ({@link Tracing#fit}).
   */
  static String tracestate(OutboxEvent event) {
    return Tracing.fit(
        event.tracestate() != null
            ? event.tracestate()
            : Tracing.currentTracestate(event.traceparent()),
        Tracing.MAX_STORED_TRACESTATE);
  }

  /** Whether every appended row must be deleted again in its transaction. */
  public boolean deletesOnWrite() {
    return deleteOnWrite;
  }

  /** Deletes the row of a {@link #prepare prepared} event again, in {@code tx}. */
  public void deleteAgain(DSLContext tx, UUID id) {
    tx.deleteFrom(OUTBOX).where(OUTBOX.ID.eq(id)).execute();
  }

  /** An event's message id and its insert (returning the id), ready to run or to embed. */
  public record Prepared(UUID id, InsertResultStep<Record1<UUID>> insert) {}

  private static long utf8(String s) {
    return s == null ? 0 : s.getBytes(StandardCharsets.UTF_8).length;
  }
}
