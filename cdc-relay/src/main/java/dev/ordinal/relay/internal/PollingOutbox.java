package dev.ordinal.relay.internal;

import dev.ordinal.relay.OutboxTable;
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
import org.jooq.Field;
import org.jooq.Row2;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * The polling relay's statements on the outbox table, for one lease owner: claim a batch, mark rows
 * dispatched, release rows not sent, count the backlog. Each runs in its own short transaction;
 * nothing here talks to Kafka.
 *
 * <p><b>Per-aggregate order, across instances.</b> An aggregate is {@code (aggregate_type,
 * aggregate_id)}; its rows are ordered by {@code occurred_at}, then {@code id}. The claim keeps
 * this invariant: <em>an instance leases a row only together with every older undispatched row of
 * its aggregate, and only when none of those is leased by anyone</em>. With the publisher sending
 * an aggregate's rows one after the other (the next only once Kafka acknowledged the one before)
 * and the lease outliving every send of its batch, no row is published while an older row of its
 * aggregate is undispatched. The claim is one transaction of two statements:
 *
 * <ol>
 *   <li>Pick the aggregates whose oldest undispatched row is free (no lease, or one that expired),
 *       among the oldest undispatched rows (a head of {@value #HEAD_PER_BATCH} times the batch
 *       size), oldest first, and take {@code pg_try_advisory_xact_lock} on each (key: "ORDA" and a
 *       hash of the aggregate). An aggregate whose lock another claimer holds is skipped, not
 *       waited for; a hash collision only makes two aggregates take turns.
 *   <li>A second statement, so that its snapshot is taken after the locks were granted: for the
 *       locked aggregates, lease the oldest undispatched rows in order up to the first that is not
 *       free (the run), oldest first over all of them, at most {@code batchSize} rows.
 * </ol>
 *
 * <p>Why this holds. {@code FOR UPDATE SKIP LOCKED} alone does not: a second claimer skips the
 * locked oldest row and takes a younger one, and a lease not yet committed is invisible to it.
 * Here, two claimers of one aggregate are serialised by the advisory lock, held until commit: the
 * one that gets it second runs statement 2 with a snapshot that sees the first one's committed
 * leases (READ COMMITTED takes a snapshot per statement, which is why the check cannot be in the
 * locking statement), so the aggregate's oldest row is leased, its run is empty, and it claims
 * nothing of it. A row a lease holder marks dispatched meanwhile is re-checked by PostgreSQL before
 * the update ({@code dispatched_at is null}, lease free), and it was published before anything
 * younger. Rows whose lease ran out are free again, with all younger rows of their aggregate behind
 * them.
 *
 * <p>What it does not do: {@code occurred_at} is the writer's clock, not commit order. When two
 * transactions write to one aggregate at once and the one with the older {@code occurred_at}
 * commits later, its row may be claimed after the younger row was published; the relay then
 * publishes it as soon as it sees it (it is the aggregate's oldest undispatched row), after the
 * younger one. Writers that need commit order to match serialise their writes to an aggregate (lock
 * its row first).
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
      String traceparent,
      String tracestate) {}

  private static final Comparator<Row> OCCURRED_ORDER =
      Comparator.comparing(Row::occurredAt).thenComparing(Row::id);

  /** The claim looks for aggregates among this many times {@code batchSize} oldest rows. */
  static final int HEAD_PER_BATCH = 4;

  /**
   * At most this many aggregates are locked per claim: advisory locks share PostgreSQL's lock table
   * ({@code max_locks_per_transaction} times the connections, 6,400 by default).
   */
  static final int MAX_AGGREGATES_PER_CLAIM = 1_000;

  /** First half of the two-int advisory lock key of an aggregate's claim: "ORDA". */
  static final int NAMESPACE = 0x4F524441;

  /** The outbox table and the columns the claim reads and writes. */
  private record Columns(
      Table<?> table,
      Field<UUID> id,
      Field<String> aggregateType,
      Field<String> aggregateId,
      Field<OffsetDateTime> occurredAt,
      Field<OffsetDateTime> dispatchedAt,
      Field<String> leaseOwner,
      Field<OffsetDateTime> leasedUntil) {
    static Columns of(OutboxTable t) {
      return new Columns(
          DSL.table(DSL.name(t.table())),
          t.id(),
          t.text(OutboxTable.Column.AGGREGATE_TYPE),
          t.text(OutboxTable.Column.AGGREGATE_ID),
          t.occurredAt(),
          DSL.field(DSL.name("dispatched_at"), SQLDataType.TIMESTAMPWITHTIMEZONE),
          DSL.field(DSL.name("lease_owner"), SQLDataType.VARCHAR),
          DSL.field(DSL.name("leased_until"), SQLDataType.TIMESTAMPWITHTIMEZONE));
    }
  }

  private final OutboxTable t;
  private final Columns o;
  private final DSLContext dsl;
  private final Clock clock;
  private final String owner;
  private final Duration lease;
  private final int batchSize;

  /** Ordinal's own outbox. */
  public PollingOutbox(DSLContext dsl, Clock clock, String owner, Duration lease, int batchSize) {
    this(OutboxTable.DEFAULT, dsl, clock, owner, lease, batchSize);
  }

  /**
   * @param t the outbox table, with the columns {@code dispatched_at}, {@code lease_owner} and
   *     {@code leased_until} besides its own
   * @param dsl a context on the outbox's schema
   * @param owner the lease owner written into claimed rows; unique per relay instance
   */
  public PollingOutbox(
      OutboxTable t, DSLContext dsl, Clock clock, String owner, Duration lease, int batchSize) {
    this.t = t;
    this.o = Columns.of(t);
    this.dsl = dsl;
    this.clock = clock;
    this.owner = owner;
    this.lease = lease;
    this.batchSize = batchSize;
  }

  /**
   * Leases up to {@code batchSize} undispatched rows to this owner until {@code now + lease}: for
   * each aggregate whose oldest undispatched row is free (never leased, or leased until strictly
   * before now) and that no other claimer is claiming right now, a run of its oldest undispatched
   * rows (see the class comment).
   *
   * @return the claimed rows in {@code occurred_at} order (ties by id)
   */
  public List<Row> claim() {
    OffsetDateTime now = now();
    List<Row> rows =
        dsl.transactionResult(
            c -> {
              DSLContext tx = c.dsl();
              List<Row2<String, String>> locked = lockAggregates(tx, now);
              if (locked.isEmpty()) {
                return List.of();
              }
              Field<Boolean> run =
                  DSL.boolAnd(free(now))
                      .over(
                          DSL.partitionBy(o.aggregateType(), o.aggregateId())
                              .orderBy(o.occurredAt(), o.id()))
                      .as("run");
              Table<?> runs =
                  DSL.select(o.id(), o.occurredAt(), run)
                      .from(o.table())
                      .where(o.dispatchedAt().isNull())
                      .and(DSL.row(o.aggregateType(), o.aggregateId()).in(locked))
                      // a prefix in occurred_at order, so runs stay runs; bounds the scan
                      .and(
                          o.occurredAt()
                              .le(DSL.select(DSL.max(headField(o.occurredAt()))).from(head())))
                      .asTable("runs");
              return tx.update(o.table())
                  .set(o.leaseOwner(), owner)
                  .set(o.leasedUntil(), now.plus(lease))
                  .where(
                      o.id()
                          .in(
                              DSL.select(runs.field(o.id()))
                                  .from(runs)
                                  .where(runs.field(run).isTrue())
                                  .orderBy(runs.field(o.occurredAt()), runs.field(o.id()))
                                  .limit(batchSize)))
                  // re-checked on the row's newest version should another transaction change it
                  .and(o.dispatchedAt().isNull())
                  .and(free(now))
                  .returningResult(t.rowFields())
                  .fetch(t::row);
            });
    // RETURNING comes in no particular order
    return rows.stream().sorted(OCCURRED_ORDER).toList();
  }

  /**
   * Statement 1 of the claim: the aggregates whose oldest undispatched row in the head is free,
   * oldest first, each with its advisory lock taken; those another claimer holds are left out.
   */
  private List<Row2<String, String>> lockAggregates(DSLContext tx, OffsetDateTime now) {
    Table<?> head = head();
    Field<String> type = headField(o.aggregateType());
    Field<String> id = headField(o.aggregateId());
    Field<OffsetDateTime> occurred = headField(o.occurredAt());
    Field<UUID> rowId = headField(o.id());
    Field<OffsetDateTime> leasedUntil = headField(o.leasedUntil());
    Field<Integer> position =
        DSL.rowNumber().over(DSL.partitionBy(type, id).orderBy(occurred, rowId)).as("position");
    Table<?> firsts =
        DSL.select(type, id, occurred, rowId, leasedUntil, position).from(head).asTable("firsts");
    Field<String> fType = firsts.field(type);
    Field<String> fId = firsts.field(id);
    Table<?> candidates =
        DSL.select(fType, fId)
            .from(firsts)
            .where(firsts.field(position).eq(1))
            .and(firsts.field(leasedUntil).isNull().or(firsts.field(leasedUntil).lt(now)))
            .orderBy(firsts.field(occurred), firsts.field(rowId))
            // a LIMIT keeps the lock function out of the subquery: only these are locked
            .limit(Math.min(batchSize, MAX_AGGREGATES_PER_CLAIM))
            .asTable("candidates");
    Field<String> cType = candidates.field(fType);
    Field<String> cId = candidates.field(fId);
    return tx.select(cType, cId)
        .from(candidates)
        .where(
            DSL.condition(
                "pg_try_advisory_xact_lock({0}, hashtext({1} || '/' || {2}))",
                DSL.val(NAMESPACE), cType, cId))
        .fetch(r -> DSL.row(r.value1(), r.value2()));
  }

  /** The oldest undispatched rows: where the claim looks for aggregates. */
  private Table<?> head() {
    return DSL.select(o.id(), o.aggregateType(), o.aggregateId(), o.occurredAt(), o.leasedUntil())
        .from(o.table())
        .where(o.dispatchedAt().isNull())
        .orderBy(o.occurredAt(), o.id())
        .limit(HEAD_PER_BATCH * batchSize)
        .asTable("head");
  }

  private static <T> Field<T> headField(Field<T> column) {
    return DSL.field(DSL.name("head", column.getName()), column.getDataType());
  }

  /** A lease that never was, or that ended strictly before {@code now}. */
  private Condition free(OffsetDateTime now) {
    return o.leasedUntil().isNull().or(o.leasedUntil().lt(now));
  }

  /**
   * Clears the lease of those {@code ids} this owner holds and that are not dispatched: rows whose
   * send is over without an acknowledgement, or that were not sent, so any instance may claim them
   * again at once rather than after the lease.
   *
   * @return the number of rows released
   */
  public int release(Collection<UUID> ids) {
    if (ids.isEmpty()) {
      return 0;
    }
    return dsl.transactionResult(
        c ->
            c.dsl()
                .update(o.table())
                .setNull(o.leaseOwner())
                .setNull(o.leasedUntil())
                .where(o.id().eq(DSL.any(ids.toArray(UUID[]::new))))
                .and(o.leaseOwner().eq(owner))
                .and(o.dispatchedAt().isNull())
                .execute());
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
                .update(o.table())
                .set(o.dispatchedAt(), now)
                .setNull(o.leaseOwner())
                .setNull(o.leasedUntil())
                // one array bind value, whatever the batch size
                .where(o.id().eq(DSL.any(ids.toArray(UUID[]::new))))
                .and(o.leaseOwner().eq(owner))
                .execute());
  }

  /** Rows not yet dispatched, leased or not (walks the partial index of undispatched rows). */
  public long undispatched() {
    return dsl.fetchCount(o.table(), o.dispatchedAt().isNull());
  }

  // PostgreSQL keeps microseconds: truncate here so a lease ends exactly where the clock says
  private OffsetDateTime now() {
    return OffsetDateTime.now(clock).truncatedTo(ChronoUnit.MICROS);
  }
}
