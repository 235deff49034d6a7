package dev.ordinal.billing;

import static dev.ordinal.billing.db.Sequences.NUMBER_BLOCK_SEQ;
import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.INVOICE_SERIES;
import static dev.ordinal.billing.db.Tables.NUMBER_BLOCK;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jooq.CommonTableExpression;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.Record2;
import org.jooq.Record3;
import org.jooq.Record4;
import org.jooq.Record5;
import org.jooq.Select;
import org.jooq.Table;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.jooq.impl.DefaultConnectionProvider;

/**
 * Just-in-time gapless numbers. {@link #reserve} is ONE statement that does nothing but reserve: it
 * locks the draft, takes the next number from its series' counter row ({@code next_no = next_no +
 * 1}, the row lock serialises one series) only if the draft still has none, stores it on the
 * invoice and sets {@code SENDING}; being a single statement it commits on its own, all or nothing,
 * before any network call, and holds the counter row's lock for that one round trip. A number, once
 * committed, belongs to that invoice for good; an invoice that already has one keeps it.
 */
public final class InvoiceNumbering {
  private static final String DRAFT = InvoiceStatus.DRAFT.name();
  private static final String SENDING = InvoiceStatus.SENDING.name();

  /**
   * An invoice's number wherever it is held: {@code invoice.number}, or, for a draft numbered by a
   * block whose number the issuer has not copied yet, {@code number_block.first_no + block_offset -
   * 1}. Null for an invoice without one. Every query that reads numbers of invoices that may be
   * {@code SENDING} reads this, not the column.
   */
  public static final Field<Long> NUMBER =
      DSL.coalesce(
          INVOICE.NUMBER,
          DSL.field(
              DSL.select(NUMBER_BLOCK.FIRST_NO.plus(INVOICE.BLOCK_OFFSET).minus(1L))
                  .from(NUMBER_BLOCK)
                  .where(NUMBER_BLOCK.ID.eq(INVOICE.BLOCK_ID))));

  /** Stand-in for the per-call bind of the reservation statement, replaced on each call. */
  private static final long ID_STAND_IN = Long.MIN_VALUE + 1;

  private final DSLContext dsl;
  private final ReserveStatement statement;

  public InvoiceNumbering(DSLContext dsl) {
    this.dsl = dsl;
    this.statement = new ReserveStatement(dsl);
  }

  /** A reserved number and what it numbers. */
  public record Reservation(UUID invoiceId, String series, long number, boolean fresh) {}

  /**
   * Gives the invoice its number if it is a draft, or returns the number it already has. Empty when
   * the invoice is not waiting to be sent (issued, voided, cancelled, in error, or unknown).
   */
  public Optional<Reservation> reserve(long invoiceRowId) {
    Optional<Reservation> r = reserveOnce(invoiceRowId);
    if (r != null) {
      return r;
    }
    // the draft's series has no counter row yet: create it (a concurrent creator wins, and this
    // insert waits for it), then reserve again
    String series =
        dsl.select(INVOICE.SERIES)
            .from(INVOICE)
            .where(INVOICE.ID.eq(invoiceRowId))
            .fetchOne(INVOICE.SERIES);
    if (series != null) {
      createSeries(dsl, series);
    }
    r = reserveOnce(invoiceRowId);
    if (r == null) {
      throw new IllegalStateException("series of invoice " + invoiceRowId + " has no counter row");
    }
    return r;
  }

  /**
   * One statement, committed on its own (the connection is in auto-commit; inside a caller's
   * transaction it joins that one):
   *
   * <pre>
   * with d as (select ... from invoice where id = ? for update),
   *      c as (update invoice_series set next_no = next_no + 1 from d
   *            where series = d.series and d.status = 'DRAFT' returning next_no - 1 as no),
   *      u as (update invoice set number = c.no, status = 'SENDING', reserved_at = ? from c
   *            where id = ? and status = 'DRAFT' returning number)
   * select d.*, c.no, u.number from d left join c on true left join u on true
   * </pre>
   *
   * The counter is bumped only for a draft that is still a draft once locked (READ COMMITTED
   * re-reads the locked row), and that same locked row is then numbered: the bump and the number
   * are one atomic statement, so no number is taken without an invoice holding it. Returns null
   * when the draft's series has no counter row yet (nothing was changed).
   */
  private Optional<Reservation> reserveOnce(long invoiceRowId) {
    Record row = statement.run(dsl, invoiceRowId);
    if (row == null) {
      return Optional.empty();
    }
    String series = row.get(statement.series);
    String status = row.get(statement.status);
    UUID invoiceId = uuid(row.get(statement.orderId));
    if (SENDING.equals(status)) {
      return Optional.of(new Reservation(invoiceId, series, row.get(statement.number), false));
    }
    if (!DRAFT.equals(status)) {
      return Optional.empty();
    }
    Long number = row.get(statement.taken);
    if (number != null) {
      return Optional.of(new Reservation(invoiceId, series, number, true));
    }
    if (row.get(statement.bumped) != null) {
      // cannot happen: the locked draft is numbered in the same statement that bumped its counter
      throw new IllegalStateException("counter of " + series + " bumped without a number taken");
    }
    return null;
  }

  /**
   * The reservation statement, built with jOOQ once and rendered once (building and rendering it
   * cost more client CPU than the database spends executing it); each call binds the invoice id and
   * the reservation time in place of the stand-ins.
   */
  private static final class ReserveStatement {
    final Field<String> series;
    final Field<String> status;
    final Field<Long> number;
    final Field<UUID> orderId;
    final Field<Long> bumped;
    final Field<Long> taken;
    private final List<Field<?>> select;
    private final String sql;
    private final List<Object> binds;

    ReserveStatement(DSLContext dsl) {
      CommonTableExpression<Record5<Long, String, String, Long, UUID>> d =
          DSL.name("d")
              .as(
                  DSL.select(
                          INVOICE.ID,
                          INVOICE.SERIES,
                          INVOICE.STATUS,
                          NUMBER.as(INVOICE.NUMBER.getName()),
                          INVOICE.ORDER_ID)
                      .from(INVOICE)
                      .where(INVOICE.ID.eq(ID_STAND_IN))
                      .forUpdate());
      Field<Long> no = DSL.field(DSL.name("no"), Long.class);
      CommonTableExpression<Record1<Long>> c =
          DSL.name("c")
              .as(
                  DSL.update(INVOICE_SERIES)
                      .set(INVOICE_SERIES.NEXT_NO, INVOICE_SERIES.NEXT_NO.plus(1))
                      .from(d)
                      .where(INVOICE_SERIES.SERIES.eq(d.field(INVOICE.SERIES)))
                      .and(d.field(INVOICE.STATUS).eq(DRAFT))
                      .returningResult(INVOICE_SERIES.NEXT_NO.minus(1).as(no)));
      Field<Long> takenAs = DSL.field(DSL.name("taken"), Long.class);
      CommonTableExpression<Record1<Long>> u =
          DSL.name("u")
              .as(
                  DSL.update(INVOICE)
                      .set(INVOICE.NUMBER, c.field(no))
                      .set(INVOICE.STATUS, SENDING)
                      .set(INVOICE.RESERVED_AT, DbClock.now())
                      .set(INVOICE.SENT_AT, DbClock.now())
                      .from(c)
                      .where(INVOICE.ID.eq(ID_STAND_IN))
                      .and(INVOICE.STATUS.eq(DRAFT))
                      .returningResult(INVOICE.NUMBER.as(takenAs)));
      series = d.field(INVOICE.SERIES);
      status = d.field(INVOICE.STATUS);
      number = d.field(INVOICE.NUMBER.getName(), Long.class);
      orderId = d.field(INVOICE.ORDER_ID);
      bumped = c.field(no);
      taken = u.field(takenAs);
      select = List.of(series, status, number, orderId, bumped, taken);
      var query =
          dsl.with(d)
              .with(c)
              .with(u)
              .select(select)
              .from(d)
              .leftJoin(c)
              .on(DSL.trueCondition())
              .leftJoin(u)
              .on(DSL.trueCondition());
      sql = dsl.render(query);
      binds = dsl.extractBindValues(query);
      if (binds.stream().filter(v -> v instanceof Long l && l == ID_STAND_IN).count() != 2) {
        throw new IllegalStateException("unexpected binds of the reservation statement: " + binds);
      }
    }

    /** Runs the statement for one invoice; null when the invoice does not exist. */
    Record run(DSLContext dsl, long invoiceRowId) {
      Object[] values = binds.toArray();
      for (int i = 0; i < values.length; i++) {
        if (values[i] instanceof Long l && l == ID_STAND_IN) {
          values[i] = invoiceRowId;
        }
      }
      return dsl.resultQuery(sql, values).coerce(select).fetchOne();
    }
  }

  /**
   * A block's numbers: {@code first .. first + size - 1} of {@code series}, one per draft the block
   * numbered (its invoices are those with {@code block_id = id}; each one's number is {@code first
   * + block_offset - 1}).
   */
  public record Block(long id, String series, long first, int size) {
    public long last() {
      return first + size - 1;
    }
  }

  /**
   * Reserves numbers for several drafts of one series, holding the series' counter only for its
   * bump and the commit: for bulk lanes. ONE statement whatever the block's size, committed on its
   * own (auto-commit):
   *
   * <pre>
   * with u as (update invoice set status = 'SENDING', block_id = (select nextval('number_block_seq')),
   *                   block_offset = req.pos, reserved_at = now(), sent_at = now()
   *            from unnest(?::bigint[]) with ordinality as req(rid, pos)
   *            where invoice.id = req.rid and series = ? and status = 'DRAFT'
   *            returning block_id, block_offset),
   *      a as (select count(*) as n, max(block_offset) as m, max(block_id) as b from u),
   *      c as (update invoice_series set next_no = next_no + a.n from a
   *            where series = ? and a.n > 0 and a.n = a.m returning next_no - a.n as first, n, b),
   *      k as (insert into number_block (id, series, first_no, size)
   *            select a.b, ?, c.first, a.n from a left join c on true where a.n > 0
   *            returning first_no)
   * select a.n, a.b, k.first_no from a left join k on true
   * </pre>
   *
   * Each draft is written once, with the block and its place in the request (the ids sorted, so two
   * blocks meet shared rows in the same order); the counter is bumped by the number of drafts
   * written only once they all are (it reads their count), and its row stays locked from there to
   * the commit that ends the statement: blocks of one series write their drafts in parallel and
   * queue only for the bump and its commit. A draft's number is {@code first_no + block_offset - 1}
   * ({@link #NUMBER}); the issuer's claim copies it into {@code invoice.number}. Ids that are not
   * drafts of the series are skipped. The offsets must be exactly 1..n before the counter moves:
   * when a skipped id was not the last (a hole), or the series has no counter row yet, the bump
   * does not happen, the range's first number is null, and {@code number_block.first_no}'s not-null
   * constraint fails the whole statement, undoing it; the block is then done in one transaction
   * that moves the drafts after the hole into it ({@link #closeHoles}) or creates the counter row,
   * and bumps the counter after. So a block never commits a range it did not fill and the series
   * stays gapless. Should two blocks given some of the same drafts still deadlock, PostgreSQL ends
   * one after {@code deadlock_timeout} and it is tried again, up to {@value #BLOCK_ATTEMPTS} times.
   * Empty when no draft was numbered.
   */
  public Optional<Block> reserveBlock(String series, List<Long> invoiceRowIds) {
    Long[] requested = invoiceRowIds.stream().distinct().sorted().toArray(Long[]::new);
    for (int attempt = 1; ; attempt++) {
      try {
        return reserveBlockOnce(series, requested);
      } catch (RuntimeException e) {
        if (attempt >= BLOCK_ATTEMPTS
            || !(e instanceof DataAccessException d && "40P01".equals(d.sqlState()))) {
          throw e;
        }
      }
    }
  }

  /** Attempts of a block that deadlocks with another block given some of the same drafts. */
  private static final int BLOCK_ATTEMPTS = 5;

  private Optional<Block> reserveBlockOnce(String series, Long[] requested) {
    Optional<Block> whole = dsl.connectionResult(conn -> reserveWhole(conn, series, requested));
    if (whole != null) {
      return whole;
    }
    return dsl.transactionResult(cfg -> reserveInTransaction(cfg.dsl(), series, requested));
  }

  /**
   * The block statement's steps: the drafts written ({@code u}), their count ({@code a}), the
   * counter bumped by it ({@code c}, whose {@code first} is the range's first number); the range's
   * record ({@link #record}) names its first number {@code firstNo}.
   */
  private record BlockSteps(
      CommonTableExpression<Record2<Long, Integer>> u,
      CommonTableExpression<Record3<Integer, Integer, Long>> a,
      Field<Integer> n,
      Field<Integer> m,
      Field<Long> b,
      CommonTableExpression<Record3<Long, Integer, Long>> c,
      Field<Long> first,
      Field<Long> firstNo) {

    static BlockSteps of(String series, Long[] requested) {
      Table<?> req = DSL.unnest(requested).withOrdinality().as("req", "rid", "pos");
      Field<Long> rid = req.field("rid", Long.class);
      Field<Long> pos = req.field("pos", Long.class);
      CommonTableExpression<Record2<Long, Integer>> u =
          DSL.name("u")
              .as(
                  DSL.update(INVOICE)
                      .set(INVOICE.STATUS, SENDING)
                      .set(INVOICE.BLOCK_ID, DSL.field(DSL.select(NUMBER_BLOCK_SEQ.nextval())))
                      .set(INVOICE.BLOCK_OFFSET, pos.cast(Integer.class))
                      .set(INVOICE.RESERVED_AT, DbClock.now())
                      .set(INVOICE.SENT_AT, DbClock.now())
                      .from(req)
                      .where(INVOICE.ID.eq(rid))
                      .and(INVOICE.SERIES.eq(series))
                      .and(INVOICE.STATUS.eq(DRAFT))
                      .returningResult(INVOICE.BLOCK_ID, INVOICE.BLOCK_OFFSET));
      Field<Integer> n = DSL.field(DSL.name("n"), Integer.class);
      Field<Integer> m = DSL.field(DSL.name("m"), Integer.class);
      Field<Long> b = DSL.field(DSL.name("b"), Long.class);
      CommonTableExpression<Record3<Integer, Integer, Long>> a =
          DSL.name("a")
              .as(
                  DSL.select(
                          DSL.count().as(n),
                          DSL.max(u.field(INVOICE.BLOCK_OFFSET)).as(m),
                          DSL.max(u.field(INVOICE.BLOCK_ID)).as(b))
                      .from(u));
      Field<Long> first = DSL.field(DSL.name("first"), Long.class);
      return new BlockSteps(
          u,
          a,
          n,
          m,
          b,
          bump(series, a, n, m, b, first),
          first,
          DSL.field(DSL.name("first_no"), Long.class));
    }

    /** The range recorded in {@code number_block} from {@code range}; returns its first number. */
    CommonTableExpression<Record1<Long>> record(
        Select<? extends Record4<Long, String, Long, Integer>> range) {
      return DSL.name("k")
          .as(
              DSL.insertInto(
                      NUMBER_BLOCK,
                      NUMBER_BLOCK.ID,
                      NUMBER_BLOCK.SERIES,
                      NUMBER_BLOCK.FIRST_NO,
                      NUMBER_BLOCK.SIZE)
                  .select(range)
                  .returningResult(NUMBER_BLOCK.FIRST_NO.as(firstNo)));
    }

    /** The counter bumped by the count, only when the offsets are exactly 1..n. */
    private static CommonTableExpression<Record3<Long, Integer, Long>> bump(
        String series,
        CommonTableExpression<Record3<Integer, Integer, Long>> a,
        Field<Integer> n,
        Field<Integer> m,
        Field<Long> b,
        Field<Long> first) {
      return DSL.name("c")
          .as(
              DSL.update(INVOICE_SERIES)
                  .set(INVOICE_SERIES.NEXT_NO, INVOICE_SERIES.NEXT_NO.plus(a.field(n)))
                  .from(a)
                  .where(INVOICE_SERIES.SERIES.eq(series))
                  .and(a.field(n).gt(0))
                  .and(a.field(n).eq(a.field(m)))
                  .returningResult(
                      INVOICE_SERIES.NEXT_NO.minus(a.field(n)).as(first), a.field(n), a.field(b)));
    }
  }

  /** Not-null violation: the auto-commit block statement found a hole or no counter row. */
  private static final String NOT_WHOLE = "23502";

  /**
   * The block in auto-commit: the same statement, committed on its own, so the counter's row is
   * unlocked by the commit that ends the statement, with no round trip to the client between the
   * bump and the commit. It must then be whole or nothing: the range is recorded from the count
   * joined to the bump ({@code a left join c}), so when the bump did not happen (a hole, or no
   * counter row yet) the range's first number is null and the not-null constraint of {@code
   * number_block.first_no} fails the statement, which undoes all of it; null is returned and the
   * transactional path, which mends both, takes over. Null too when the connection is inside a
   * caller's transaction (the failure would abort it).
   */
  private Optional<Block> reserveWhole(java.sql.Connection conn, String series, Long[] requested)
      throws java.sql.SQLException {
    if (!conn.getAutoCommit()) {
      return null;
    }
    DSLContext ctx = dsl.configuration().derive(new DefaultConnectionProvider(conn)).dsl();
    BlockSteps s = BlockSteps.of(series, requested);
    CommonTableExpression<Record1<Long>> k =
        s.record(
            DSL.select(
                    s.a().field(s.b()), DSL.val(series), s.c().field(s.first()), s.a().field(s.n()))
                .from(s.a())
                .leftJoin(s.c())
                .on(DSL.trueCondition())
                .where(s.a().field(s.n()).gt(0)));
    Record3<Integer, Long, Long> r;
    try {
      r =
          ctx.with(s.u())
              .with(s.a())
              .with(s.c())
              .with(k)
              .select(s.a().field(s.n()), s.a().field(s.b()), k.field(s.firstNo()))
              .from(s.a())
              .leftJoin(k)
              .on(DSL.trueCondition())
              .fetchOne();
    } catch (DataAccessException e) {
      if (NOT_WHOLE.equals(e.sqlState())) {
        return null;
      }
      throw e;
    }
    int written = r.value1();
    if (written == 0) {
      return Optional.empty();
    }
    if (r.value3() == null) {
      // cannot happen: a block that wrote drafts records its range or fails whole
      throw new IllegalStateException("block " + r.value2() + " committed without its range");
    }
    return Optional.of(new Block(r.value2(), series, r.value3(), written));
  }

  /**
   * The block in one transaction: the statement bumps the counter when the offsets are whole;
   * otherwise the holes are closed and the counter bumped after, before the commit.
   */
  private static Optional<Block> reserveInTransaction(
      DSLContext tx, String series, Long[] requested) {
    BlockSteps s = BlockSteps.of(series, requested);
    CommonTableExpression<Record3<Long, Integer, Long>> c = s.c();
    CommonTableExpression<Record1<Long>> k =
        s.record(
            DSL.select(c.field(s.b()), DSL.val(series), c.field(s.first()), c.field(s.n()))
                .from(c));
    Record4<Integer, Integer, Long, Long> r =
        tx.with(s.u())
            .with(s.a())
            .with(c)
            .with(k)
            .select(
                s.a().field(s.n()), s.a().field(s.m()), s.a().field(s.b()), k.field(s.firstNo()))
            .from(s.a())
            .leftJoin(k)
            .on(DSL.trueCondition())
            .fetchOne();
    int written = r.value1();
    if (written == 0) {
      return Optional.empty();
    }
    long blockId = r.value3();
    Long at = r.value4();
    if (at == null) {
      if (r.value2() != written) {
        // an id before the last was skipped: its offset is a hole to fill before the bump
        closeHoles(tx, requested, blockId, written);
      }
      at = bump(tx, series, blockId, written);
      if (at == null) {
        // the series has no counter row yet: create it (a concurrent creator wins, and
        // this insert waits for it), then bump
        createSeries(tx, series);
        at = bump(tx, series, blockId, written);
        if (at == null) {
          throw new IllegalStateException("series " + series + " has no counter row");
        }
      }
    }
    return Optional.of(new Block(blockId, series, at, written));
  }

  /**
   * Makes the offsets of the {@code n} drafts block {@code blockId} wrote exactly 1..n: ids of the
   * request that were not drafts (or that another reservation took between the statement's snapshot
   * and its write) left their positions unused, so the drafts with offsets above n move into those
   * holes (a second write of those rows only, in the block's transaction, before the counter is
   * touched).
   */
  private static void closeHoles(DSLContext tx, Long[] requested, long blockId, int n) {
    var rows =
        tx.select(INVOICE.ID, INVOICE.BLOCK_OFFSET)
            .from(INVOICE)
            .where(INVOICE.ID.eq(DSL.any(requested)))
            .and(INVOICE.BLOCK_ID.eq(blockId))
            .orderBy(INVOICE.BLOCK_OFFSET)
            .fetch();
    if (rows.size() != n) {
      throw new IllegalStateException(
          "block " + blockId + " wrote " + n + " drafts but holds " + rows.size());
    }
    boolean[] used = new boolean[n + 1];
    for (var row : rows) {
      if (row.value2() <= n) {
        used[row.value2()] = true;
      }
    }
    int hole = 1;
    for (var row : rows) {
      if (row.value2() <= n) {
        continue;
      }
      while (used[hole]) {
        hole++;
      }
      used[hole] = true;
      tx.update(INVOICE)
          .set(INVOICE.BLOCK_OFFSET, hole)
          .where(INVOICE.ID.eq(row.value1()))
          .execute();
    }
  }

  /**
   * Bumps the series' counter by {@code n} and records the range as block {@code blockId}; the
   * first number of the range, or null when the series has no counter row.
   */
  private static Long bump(DSLContext tx, String series, long blockId, int n) {
    Field<Long> first = DSL.field(DSL.name("first"), Long.class);
    CommonTableExpression<Record1<Long>> c =
        DSL.name("c")
            .as(
                DSL.update(INVOICE_SERIES)
                    .set(INVOICE_SERIES.NEXT_NO, INVOICE_SERIES.NEXT_NO.plus(n))
                    .where(INVOICE_SERIES.SERIES.eq(series))
                    .returningResult(INVOICE_SERIES.NEXT_NO.minus(n).as(first)));
    return tx.with(c)
        .insertInto(
            NUMBER_BLOCK,
            NUMBER_BLOCK.ID,
            NUMBER_BLOCK.SERIES,
            NUMBER_BLOCK.FIRST_NO,
            NUMBER_BLOCK.SIZE)
        .select(DSL.select(DSL.val(blockId), DSL.val(series), c.field(first), DSL.val(n)).from(c))
        .returningResult(NUMBER_BLOCK.FIRST_NO)
        .fetchOptional(NUMBER_BLOCK.FIRST_NO)
        .orElse(null);
  }

  /** Creates the series' counter row at 1 (first number of a new series); a concurrent one wins. */
  private static void createSeries(DSLContext ctx, String series) {
    ctx.insertInto(INVOICE_SERIES)
        .set(INVOICE_SERIES.SERIES, series)
        .set(INVOICE_SERIES.NEXT_NO, 1L)
        .onConflictDoNothing()
        .execute();
  }

  static UUID uuid(dev.ordinal.billing.db.tables.records.InvoiceRecord inv) {
    return uuid(inv.getOrderId());
  }

  /**
   * The invoice's identity towards the integrator: stable, derived from the order (one invoice per
   * order), so a resend of the same invoice is recognised as the same one.
   */
  static UUID uuid(UUID orderId) {
    return invoiceId(orderId);
  }

  /** The id under which the integrator knows the invoice of {@code orderId}. */
  public static UUID invoiceId(UUID orderId) {
    return UUID.nameUUIDFromBytes(("invoice:" + orderId).getBytes(StandardCharsets.UTF_8));
  }
}
