package dev.ordinal.billing;

import static dev.ordinal.billing.db.Sequences.NUMBER_BLOCK_SEQ;
import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.INVOICE_SERIES;
import static dev.ordinal.billing.db.Tables.NUMBER_BLOCK;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jooq.CommonTableExpression;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Record1;
import org.jooq.Record2;
import org.jooq.Record5;
import org.jooq.impl.DSL;

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
   * Reserves numbers for several drafts of one series in one short transaction, holding the series'
   * counter only for its bump: for bulk lanes. Two statements whatever the block's size, then the
   * commit:
   *
   * <pre>
   * -- 1. each draft written once, with the block and its place in it; no counter lock yet
   * with cand as (select id, row_number() over (order by id) as rn from invoice
   *               where id = any(?) and series = ? and status = 'DRAFT'),
   *      blk  as materialized (select nextval('number_block_seq') as id)
   * update invoice set status = 'SENDING', block_id = blk.id, block_offset = cand.rn, ...
   * from cand, blk where invoice.id = cand.id and invoice.status = 'DRAFT'
   * returning id, order_id, block_id, block_offset
   * -- 2. the counter bumped by the block's size, and the range it took recorded
   * with c as (update invoice_series set next_no = next_no + ? where series = ?
   *            returning next_no - ? as first)
   * insert into number_block (id, series, first_no, size) select ?, ?, first, ? from c
   * </pre>
   *
   * A draft's number is {@code first_no + block_offset - 1} ({@link #NUMBER}); the issuer's claim
   * copies it into {@code invoice.number}. The counter row is locked from the second statement to
   * the commit, so blocks of one series write their drafts in parallel and queue only for the bump.
   * Drafts that are no longer drafts are skipped. The offsets end exactly 1..n before the counter
   * is bumped: a draft taken by another reservation between the statement's snapshot and its write
   * leaves a hole, which the block's last drafts fill ({@link #closeHoles}), so a block never
   * commits a range it did not fill and the series stays gapless. Two blocks given some of the same
   * drafts can deadlock on those rows (PostgreSQL ends one after {@code deadlock_timeout}, 1 s by
   * default); the ended one is tried again, up to {@value #BLOCK_ATTEMPTS} times. Lanes that give
   * each block its own drafts never meet that.
   */
  public List<Reservation> reserveBlock(String series, List<Long> invoiceRowIds) {
    for (int attempt = 1; ; attempt++) {
      try {
        return reserveBlockOnce(series, invoiceRowIds);
      } catch (RuntimeException e) {
        if (attempt >= BLOCK_ATTEMPTS || !deadlock(e)) {
          throw e;
        }
      }
    }
  }

  /** Attempts of a block that deadlocks with another block given some of the same drafts. */
  private static final int BLOCK_ATTEMPTS = 5;

  private static boolean deadlock(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.sql.SQLException sql && "40P01".equals(sql.getSQLState())) {
        return true;
      }
    }
    return false;
  }

  private List<Reservation> reserveBlockOnce(String series, List<Long> invoiceRowIds) {
    Long[] requested = invoiceRowIds.toArray(Long[]::new);
    return dsl.transactionResult(
        cfg -> {
          DSLContext tx = cfg.dsl();
          Field<Long> candId = DSL.field(DSL.name("cand_id"), Long.class);
          Field<Integer> rn = DSL.field(DSL.name("rn"), Integer.class);
          CommonTableExpression<Record2<Long, Integer>> cand =
              DSL.name("cand")
                  .as(
                      DSL.select(
                              INVOICE.ID.as(candId),
                              DSL.rowNumber().over(DSL.orderBy(INVOICE.ID)).as(rn))
                          .from(INVOICE)
                          .where(INVOICE.ID.eq(DSL.any(requested)))
                          .and(INVOICE.SERIES.eq(series))
                          .and(INVOICE.STATUS.eq(DRAFT)));
          Field<Long> blkId = DSL.field(DSL.name("blk_id"), Long.class);
          CommonTableExpression<Record1<Long>> blk =
              DSL.name("blk").asMaterialized(DSL.select(NUMBER_BLOCK_SEQ.nextval().as(blkId)));
          var written =
              tx.with(cand)
                  .with(blk)
                  .update(INVOICE)
                  .set(INVOICE.STATUS, SENDING)
                  .set(INVOICE.BLOCK_ID, blk.field(blkId))
                  .set(INVOICE.BLOCK_OFFSET, cand.field(rn))
                  .set(INVOICE.RESERVED_AT, DbClock.now())
                  .set(INVOICE.SENT_AT, DbClock.now())
                  .from(cand, blk)
                  .where(INVOICE.ID.eq(cand.field(candId)))
                  .and(INVOICE.STATUS.eq(DRAFT))
                  .returningResult(
                      INVOICE.ID, INVOICE.ORDER_ID, INVOICE.BLOCK_ID, INVOICE.BLOCK_OFFSET)
                  .fetch();
          List<Reservation> out = new ArrayList<>(written.size());
          if (written.isEmpty()) {
            return out;
          }
          int n = written.size();
          long blockId = written.get(0).get(INVOICE.BLOCK_ID);
          List<Integer> offsets = closeHoles(tx, written, n);
          Long first = bump(tx, series, blockId, n);
          if (first == null) {
            // the series has no counter row yet: create it (a concurrent creator wins, and this
            // insert waits for it), then bump
            createSeries(tx, series);
            first = bump(tx, series, blockId, n);
            if (first == null) {
              throw new IllegalStateException("series " + series + " has no counter row");
            }
          }
          for (int i = 0; i < n; i++) {
            out.add(
                new Reservation(
                    uuid(written.get(i).get(INVOICE.ORDER_ID)),
                    series,
                    first + offsets.get(i) - 1,
                    true));
          }
          out.sort(Comparator.comparingLong(Reservation::number));
          return out;
        });
  }

  /**
   * The offsets of the {@code n} drafts a block wrote, made exactly 1..n: a draft that another
   * reservation (or a cancellation) took between the block's snapshot and its write was skipped,
   * leaving its offset unused, so the drafts with offsets above n move into those holes (a second
   * write of those few rows only, in the block's transaction, before the counter is touched).
   */
  private static List<Integer> closeHoles(
      DSLContext tx, org.jooq.Result<? extends Record> written, int n) {
    List<Integer> offsets = new ArrayList<>(n);
    boolean[] used = new boolean[n + 1];
    for (Record r : written) {
      int offset = r.get(INVOICE.BLOCK_OFFSET);
      offsets.add(offset);
      if (offset <= n) {
        used[offset] = true;
      }
    }
    int hole = 1;
    for (int i = 0; i < n; i++) {
      if (offsets.get(i) <= n) {
        continue;
      }
      while (used[hole]) {
        hole++;
      }
      used[hole] = true;
      tx.update(INVOICE)
          .set(INVOICE.BLOCK_OFFSET, hole)
          .where(INVOICE.ID.eq(written.get(i).get(INVOICE.ID)))
          .execute();
      offsets.set(i, hole);
    }
    return offsets;
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
