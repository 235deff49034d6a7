package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.INVOICE_SERIES;

import dev.ordinal.billing.db.tables.records.InvoiceRecord;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.impl.DSL;

/**
 * The invoice state machine, every transition in one place. Each one is a guarded SQL update
 * ({@code WHERE status = ...}), so a late or repeated step never moves an invoice backwards; the
 * issuer's steps are also guarded by the attempt that took them ({@code attempts}, incremented by
 * every claim, is the attempt's epoch), so an attempt that outlived its lease changes nothing once
 * another attempt has claimed the invoice. Times come from the database's clock ({@link DbClock}).
 *
 * <pre>
 * DRAFT --reserve (number, sent_at)--> SENDING --accepted, or found by look-up--> ISSUED
 *   |                                   |  ^  \--rejected--> ERROR --operator resend--> SENDING
 *   |                                   |  |                   |  \--operator void--> VOIDED
 *   |                                   |  \--cancelled, VOID rule: to be looked up--/
 *   |                                   \--cancelled, VOID rule, look-up after the window
 *   |                                      finds nothing--> VOIDED
 *   \--order cancelled--> CANCELLED (no number)
 * </pre>
 *
 * <p><b>Cancellation.</b> A draft becomes {@code CANCELLED} without consuming a number. A numbered
 * invoice keeps its number and is marked cancelled ({@code cancelled_at}); its series' {@link
 * InvoiceSeries.CancelRule} decides the rest. Under {@code ISSUE_THEN_CANCEL} the number is issued
 * anyway (ERROR waits for an operator as usual). Under {@code VOID} a number the integrator does
 * not hold is voided with the reason, and the only proof that it does not hold it is a look-up
 * taken after every earlier submission's possible in-flight time: {@code sent_at} (when the latest
 * submission began) + the issuer's window (lease + client timeout). Before that, "not found" may
 * mean "not yet" (a late accept), so the invoice waits, {@code SENDING}, until the window has
 * passed and is looked up again. A cancelled invoice in {@code ERROR} goes back to {@code SENDING}
 * for that look-up. An issued invoice stays {@code ISSUED} under both rules.
 *
 * <p>An accept that arrives for an invoice that is no longer {@code SENDING} (voided or in error
 * here while the integrator stored it) is not a transition: the issuer logs it, counts it and
 * records it as a discrepancy ({@link InvoiceReconciliation}).
 */
final class InvoiceLifecycle {
  private static final String DRAFT = InvoiceStatus.DRAFT.name();
  private static final String SENDING = InvoiceStatus.SENDING.name();
  private static final String ISSUED = InvoiceStatus.ISSUED.name();
  private static final String ERROR = InvoiceStatus.ERROR.name();
  private static final String VOIDED = InvoiceStatus.VOIDED.name();
  private static final String CANCELLED = InvoiceStatus.CANCELLED.name();
  private static final int MAX_TEXT = 500;

  private InvoiceLifecycle() {}

  /**
   * An order's cancellation, inside the caller's transaction (the inbox's): DRAFT → CANCELLED; a
   * numbered invoice is marked cancelled (once); under the VOID rule one in ERROR goes back to
   * SENDING, due at once, so the issuer looks it up before voiding it.
   */
  static void cancel(DSLContext tx, UUID orderId, String reason, OffsetDateTime at) {
    tx.update(INVOICE)
        .set(INVOICE.STATUS, CANCELLED)
        .set(INVOICE.NEXT_ATTEMPT_AT, (OffsetDateTime) null)
        .set(INVOICE.CANCELLED_AT, at)
        .set(INVOICE.CANCEL_REASON, truncate(reason))
        .where(INVOICE.ORDER_ID.eq(orderId))
        .and(INVOICE.STATUS.eq(DRAFT))
        .execute();
    tx.update(INVOICE)
        .set(INVOICE.CANCELLED_AT, at)
        .set(INVOICE.CANCEL_REASON, truncate(reason))
        .where(INVOICE.ORDER_ID.eq(orderId))
        .and(INVOICE.CANCELLED_AT.isNull())
        .and(INVOICE.STATUS.in(SENDING, ISSUED, ERROR))
        .execute();
    tx.update(INVOICE)
        .set(INVOICE.STATUS, SENDING)
        .set(INVOICE.NEXT_ATTEMPT_AT, (OffsetDateTime) null)
        .where(INVOICE.ORDER_ID.eq(orderId))
        .and(INVOICE.STATUS.eq(ERROR))
        .and(voidsOnCancel())
        .execute();
  }

  /**
   * SENDING → ISSUED with an {@code InvoiceIssued} event, one transaction: the integrator holds the
   * invoice (accepted now, or found by a look-up). Not guarded by the attempt: an accept is a fact
   * whichever attempt learns it. False when the invoice was not SENDING.
   */
  static boolean issue(DSLContext dsl, InvoiceRecord inv, InvoiceEvents events) {
    return dsl.transactionResult(
        c -> {
          DSLContext tx = c.dsl();
          int changed =
              tx.update(INVOICE)
                  .set(INVOICE.STATUS, ISSUED)
                  .set(INVOICE.ISSUED_AT, DbClock.now())
                  .set(INVOICE.NEXT_ATTEMPT_AT, (OffsetDateTime) null)
                  .set(INVOICE.LAST_ERROR, (String) null)
                  .where(INVOICE.ID.eq(inv.getId()))
                  .and(INVOICE.STATUS.eq(SENDING))
                  .execute();
          if (changed == 1) {
            events.issued(tx, inv);
          }
          return changed == 1;
        });
  }

  /**
   * Before attempt {@code epoch} sends a SENDING invoice again (its look-up found nothing): stamps
   * {@code sent_at}. False when another attempt has claimed it since, or it left SENDING: then it
   * must not be sent.
   */
  static boolean resending(DSLContext dsl, long id, int epoch) {
    return dsl.update(INVOICE)
            .set(INVOICE.SENT_AT, DbClock.now())
            .where(INVOICE.ID.eq(id))
            .and(INVOICE.STATUS.eq(SENDING))
            .and(INVOICE.ATTEMPTS.eq(epoch))
            .execute()
        == 1;
  }

  /**
   * Attempt {@code epoch}'s submission really starts (a call slot is free, the request goes next):
   * stamps {@code sent_at}, the start of the in-flight window a void waits out. False when another
   * attempt has claimed the invoice since, or it left SENDING: then the call must not be made.
   */
  static boolean callStarts(DSLContext dsl, long id, int epoch) {
    return resending(dsl, id, epoch);
  }

  /**
   * Attempt {@code epoch}'s submission was refused for good. SENDING → ERROR with the reason,
   * number kept; but a cancelled invoice whose series voids on cancel stays SENDING until {@code
   * sent_at + window}, when a look-up decides (an earlier submission may still land). False when
   * another attempt has claimed it since.
   */
  static boolean reject(DSLContext dsl, long id, int epoch, String why, Duration window) {
    return toError(dsl, id, epoch, why, INVOICE.CANCELLED_AT.isNull().or(DSL.not(voidsOnCancel())))
        || deferVoid(dsl, id, epoch, why, window);
  }

  /**
   * Attempt {@code epoch} found its number holding another invoice at the integrator: SENDING →
   * ERROR, cancelled or not; only an operator can sort that out. False when another attempt has
   * claimed it since.
   */
  static boolean numberTaken(DSLContext dsl, long id, int epoch, String why) {
    return toError(dsl, id, epoch, why, DSL.noCondition());
  }

  private static boolean toError(
      DSLContext dsl, long id, int epoch, String why, Condition condition) {
    return dsl.update(INVOICE)
            .set(INVOICE.STATUS, ERROR)
            .set(INVOICE.LAST_ERROR, truncate(why))
            .set(INVOICE.NEXT_ATTEMPT_AT, (OffsetDateTime) null)
            .where(INVOICE.ID.eq(id))
            .and(INVOICE.STATUS.eq(SENDING))
            .and(INVOICE.ATTEMPTS.eq(epoch))
            .and(condition)
            .execute()
        == 1;
  }

  /**
   * Attempt {@code epoch}'s look-up, begun at {@code lookedUpAt} (database clock), found nothing:
   * SENDING → VOIDED with an {@code InvoiceVoided} event when the order was cancelled, its series
   * voids on cancel and the look-up began after {@code sent_at + window}. False otherwise.
   */
  static boolean voidNotHeld(
      DSLContext dsl,
      long id,
      int epoch,
      OffsetDateTime lookedUpAt,
      Duration window,
      InvoiceEvents events) {
    return toVoided(
        dsl,
        id,
        DSL.val("order cancelled: ").concat(INVOICE.CANCEL_REASON),
        INVOICE
            .STATUS
            .eq(SENDING)
            .and(INVOICE.ATTEMPTS.eq(epoch))
            .and(INVOICE.CANCELLED_AT.isNotNull())
            .and(voidsOnCancel())
            .and(INVOICE.SENT_AT.isNull().or(INVOICE.SENT_AT.le(lookedUpAt.minus(window)))),
        events);
  }

  /**
   * A cancelled invoice under the VOID rule whose look-up came too early: due again at {@code
   * sent_at + window}, still SENDING, with {@code why}. False when it is not such an invoice, or
   * another attempt has claimed it since.
   */
  static boolean deferVoid(DSLContext dsl, long id, int epoch, String why, Duration window) {
    return dsl.update(INVOICE)
            .set(
                INVOICE.NEXT_ATTEMPT_AT,
                DSL.greatest(DbClock.plus(INVOICE.SENT_AT, window), DbClock.now()))
            .set(INVOICE.LAST_ERROR, truncate(why))
            .where(INVOICE.ID.eq(id))
            .and(INVOICE.STATUS.eq(SENDING))
            .and(INVOICE.ATTEMPTS.eq(epoch))
            .and(INVOICE.CANCELLED_AT.isNotNull())
            .and(voidsOnCancel())
            .and(INVOICE.SENT_AT.isNotNull())
            .execute()
        == 1;
  }

  /**
   * Attempt {@code epoch} ended without an outcome (transient failure, unknown outcome): due again
   * {@code wait} from now, same number. Nothing when another attempt has claimed it since.
   */
  static void retryLater(DSLContext dsl, long id, int epoch, Duration wait, String why) {
    dsl.update(INVOICE)
        .set(INVOICE.NEXT_ATTEMPT_AT, DbClock.nowPlus(wait))
        .set(INVOICE.LAST_ERROR, truncate(why))
        .where(INVOICE.ID.eq(id))
        .and(INVOICE.STATUS.in(DRAFT, SENDING))
        .and(INVOICE.ATTEMPTS.eq(epoch))
        .execute();
  }

  /** Operator: ERROR → SENDING with the same number, due at once. False if not in ERROR. */
  static boolean resendByOperator(DSLContext dsl, long id) {
    return dsl.update(INVOICE)
            .set(INVOICE.STATUS, SENDING)
            .set(INVOICE.NEXT_ATTEMPT_AT, (OffsetDateTime) null)
            .where(INVOICE.ID.eq(id))
            .and(INVOICE.STATUS.eq(ERROR))
            .execute()
        == 1;
  }

  /**
   * Operator: ERROR → VOIDED with {@code reason} and an {@code InvoiceVoided} event; the number
   * stays taken. False if not in ERROR.
   */
  static boolean voidByOperator(DSLContext dsl, long id, String reason, InvoiceEvents events) {
    return toVoided(dsl, id, DSL.val(truncate(reason)), INVOICE.STATUS.eq(ERROR), events);
  }

  /**
   * Invoice {@code id}, when {@code which} holds, → VOIDED with {@code reason} and an {@code
   * InvoiceVoided} event, one transaction. True when it was voided.
   */
  private static boolean toVoided(
      DSLContext dsl, long id, Field<String> reason, Condition which, InvoiceEvents events) {
    return dsl.transactionResult(
        c -> {
          DSLContext tx = c.dsl();
          var voided =
              tx.update(INVOICE)
                  .set(INVOICE.STATUS, VOIDED)
                  .set(INVOICE.VOID_REASON, reason)
                  .set(INVOICE.NEXT_ATTEMPT_AT, (OffsetDateTime) null)
                  .where(INVOICE.ID.eq(id))
                  .and(which)
                  .returning()
                  .fetch();
          voided.forEach(inv -> events.voided(tx, inv));
          return voided.size() == 1;
        });
  }

  /** The invoice's series voids on cancel (a series without a counter row has the default). */
  static Condition voidsOnCancel() {
    return DSL.coalesce(
            DSL.field(
                DSL.select(INVOICE_SERIES.CANCEL_RULE)
                    .from(INVOICE_SERIES)
                    .where(INVOICE_SERIES.SERIES.eq(INVOICE.SERIES))),
            DSL.val(InvoiceSeries.CancelRule.VOID.name()))
        .eq(InvoiceSeries.CancelRule.VOID.name());
  }

  static String truncate(String s) {
    return s == null ? null : s.length() > MAX_TEXT ? s.substring(0, MAX_TEXT) : s;
  }
}
