package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.INVOICE_SERIES;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jooq.CommonTableExpression;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Record1;
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
                          INVOICE.NUMBER,
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
      number = d.field(INVOICE.NUMBER);
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
