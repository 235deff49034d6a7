package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.INVOICE_SERIES;

import dev.ordinal.billing.db.tables.records.InvoiceRecord;
import dev.ordinal.billing.db.tables.records.InvoiceSeriesRecord;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * Just-in-time gapless numbers. {@link #reserve} is a short transaction that does nothing but
 * reserve: it locks the draft, takes the next number from its series' counter row ({@code next_no =
 * next_no + 1}, the row lock serialises one series), stores it on the invoice, sets {@code SENDING}
 * and commits, before any network call. A number, once committed, belongs to that invoice for good;
 * an invoice that already has one keeps it.
 */
public final class InvoiceNumbering {
  private final DSLContext dsl;
  private final Clock clock;

  public InvoiceNumbering(DSLContext dsl, Clock clock) {
    this.dsl = dsl;
    this.clock = clock;
  }

  /** A reserved number and what it numbers. */
  public record Reservation(UUID invoiceId, String series, long number, boolean fresh) {}

  /**
   * Gives the invoice its number if it is a draft, or returns the number it already has. Empty when
   * the invoice is not waiting to be sent (issued, voided, cancelled, in error, or unknown).
   */
  public Optional<Reservation> reserve(long invoiceRowId) {
    return dsl.transactionResult(
        c -> {
          DSLContext tx = c.dsl();
          InvoiceRecord inv =
              tx.selectFrom(INVOICE).where(INVOICE.ID.eq(invoiceRowId)).forUpdate().fetchOne();
          if (inv == null) {
            return Optional.<Reservation>empty();
          }
          InvoiceStatus status = InvoiceStatus.valueOf(inv.getStatus());
          if (status == InvoiceStatus.SENDING) {
            return Optional.of(new Reservation(uuid(inv), inv.getSeries(), inv.getNumber(), false));
          }
          if (status != InvoiceStatus.DRAFT) {
            return Optional.<Reservation>empty();
          }
          long number = next(tx, inv.getSeries(), 1);
          tx.update(INVOICE)
              .set(INVOICE.NUMBER, number)
              .set(INVOICE.STATUS, InvoiceStatus.SENDING.name())
              .set(INVOICE.RESERVED_AT, OffsetDateTime.now(clock))
              .where(INVOICE.ID.eq(invoiceRowId))
              .and(INVOICE.STATUS.eq(InvoiceStatus.DRAFT.name()))
              .execute();
          return Optional.of(new Reservation(uuid(inv), inv.getSeries(), number, true));
        });
  }

  /**
   * Reserves numbers for several drafts of one series in one short transaction (one commit, one
   * counter update for the whole block): for bulk lanes. Drafts that are no longer drafts are
   * skipped; the numbers handed out are consecutive.
   */
  public List<Reservation> reserveBlock(String series, List<Long> invoiceRowIds) {
    return dsl.transactionResult(
        c -> {
          DSLContext tx = c.dsl();
          List<InvoiceRecord> drafts =
              tx.selectFrom(INVOICE)
                  .where(INVOICE.ID.in(invoiceRowIds))
                  .and(INVOICE.SERIES.eq(series))
                  .and(INVOICE.STATUS.eq(InvoiceStatus.DRAFT.name()))
                  .orderBy(INVOICE.ID)
                  .forUpdate()
                  .fetch();
          List<Reservation> out = new ArrayList<>(drafts.size());
          if (drafts.isEmpty()) {
            return out;
          }
          long first = next(tx, series, drafts.size());
          // one statement numbers the whole block, in id order: first, first + 1, ...
          List<Long> ids = drafts.stream().map(InvoiceRecord::getId).toList();
          Table<?> block =
              DSL.select(
                      INVOICE.ID.as("block_id"),
                      DSL.rowNumber().over(DSL.orderBy(INVOICE.ID)).as("block_rn"))
                  .from(INVOICE)
                  .where(INVOICE.ID.in(ids))
                  .asTable("block");
          Field<Long> blockId = block.field("block_id", Long.class);
          Field<Integer> rn = block.field("block_rn", Integer.class);
          tx.update(INVOICE)
              .set(INVOICE.NUMBER, DSL.val(first - 1).plus(rn.cast(Long.class)))
              .set(INVOICE.STATUS, InvoiceStatus.SENDING.name())
              .set(INVOICE.RESERVED_AT, OffsetDateTime.now(clock))
              .from(block)
              .where(INVOICE.ID.eq(blockId))
              .execute();
          for (int i = 0; i < drafts.size(); i++) {
            out.add(new Reservation(uuid(drafts.get(i)), series, first + i, true));
          }
          return out;
        });
  }

  /** Takes {@code count} numbers from the series' counter row; returns the first. */
  private static long next(DSLContext tx, String series, int count) {
    InvoiceSeriesRecord after = bump(tx, series, count);
    if (after == null) {
      // first number of a new series: create its counter row (a concurrent creator wins, and
      // this insert waits for it), then take the numbers
      tx.insertInto(INVOICE_SERIES)
          .set(INVOICE_SERIES.SERIES, series)
          .set(INVOICE_SERIES.NEXT_NO, 1L)
          .onConflictDoNothing()
          .execute();
      after = bump(tx, series, count);
    }
    return after.getNextNo() - count;
  }

  private static InvoiceSeriesRecord bump(DSLContext tx, String series, int count) {
    return tx.update(INVOICE_SERIES)
        .set(INVOICE_SERIES.NEXT_NO, INVOICE_SERIES.NEXT_NO.plus(count))
        .where(INVOICE_SERIES.SERIES.eq(series))
        .returning(INVOICE_SERIES.NEXT_NO)
        .fetchOne();
  }

  static UUID uuid(InvoiceRecord inv) {
    // the invoice's identity towards the integrator: stable, derived from the order (one invoice
    // per order), so a resend of the same invoice is recognised as the same one
    return UUID.nameUUIDFromBytes(
        ("invoice:" + inv.getOrderId()).getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }
}
