package dev.ordinal.billing;

import static dev.ordinal.billing.PaymentStatus.CANCELLED;
import static dev.ordinal.billing.PaymentStatus.CAPTURED;
import static dev.ordinal.billing.PaymentStatus.FAILED;
import static dev.ordinal.billing.PaymentStatus.PENDING;
import static dev.ordinal.billing.PaymentStatus.REFUNDED;
import static dev.ordinal.billing.PaymentStatus.REFUND_FAILED;
import static dev.ordinal.billing.db.Tables.PAYMENT;

import dev.ordinal.billing.db.tables.records.PaymentRecord;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Set;
import java.util.UUID;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.TableField;
import org.jooq.UpdateQuery;
import org.jooq.impl.DSL;

/**
 * The payment state machine's writes, every one in one place; the states and the transitions they
 * allow, with the diagram, are {@link PaymentStatus}'s. Each status write is a guarded SQL update
 * ({@code WHERE status = <from>}) built by {@link #move}, which refuses a transition {@link
 * PaymentStatus} does not allow, so none can be written; the steps that keep the status (a retry
 * time, a look-up put off) are guarded by it the same way. The collector's steps are also fenced on
 * the claim's attempt ({@code attempts}, incremented by every claim, is the attempt's epoch), so an
 * attempt that outlived its lease changes nothing once another has claimed the payment; a capture
 * and a refund are facts whichever attempt learns them, and are not fenced. Times come from the
 * database's clock ({@link DbClock}).
 */
final class PaymentLifecycle {
  private PaymentLifecycle() {}

  /**
   * The status a payment is created in, for the insert of an order's placement: CANCELLED (never
   * charged) when {@code cancelledFirst} holds, else PENDING.
   */
  static Field<String> placed(Condition cancelledFirst) {
    return DSL.when(cancelledFirst, CANCELLED.name()).otherwise(PENDING.name());
  }

  /**
   * The charge {@code chargeId} was taken (the gateway answered, or a look-up by idempotency key
   * found it): PENDING → CAPTURED, or CANCELLED → CAPTURED where a stale "never charged" decision
   * settled the payment meanwhile (its refund is requested, so it is refunded next). Not fenced:
   * the money was taken, whichever attempt learns it. False when the payment was in neither.
   */
  static boolean capture(DSLContext dsl, UUID orderId, String chargeId) {
    UpdateQuery<PaymentRecord> q = move(dsl, orderId, Set.of(PENDING, CANCELLED), CAPTURED);
    q.addConditions(PAYMENT.STATUS.eq(PENDING.name()).or(PAYMENT.REFUND_REQUESTED.isTrue()));
    q.addValue(PAYMENT.CHARGE_ID, chargeId);
    q.addValue(PAYMENT.NEXT_ATTEMPT_AT, (OffsetDateTime) null);
    q.addValue(PAYMENT.LAST_ERROR, (String) null);
    return q.execute() == 1;
  }

  /**
   * Attempt {@code epoch} settled a cancelled order as never charged: PENDING → CANCELLED. "Never
   * charged" holds only for this attempt: when its collector was slower than its lease, a later
   * attempt may be asking the gateway right now, and what it learns must win over this stale
   * decision. False when another attempt has claimed the payment since, or it left PENDING.
   */
  static boolean cancelUncharged(DSLContext dsl, UUID orderId, int epoch) {
    UpdateQuery<PaymentRecord> q = move(dsl, orderId, PENDING, CANCELLED);
    q.addConditions(PAYMENT.ATTEMPTS.eq(epoch));
    q.addValue(PAYMENT.NEXT_ATTEMPT_AT, (OffsetDateTime) null);
    return q.execute() == 1;
  }

  /**
   * Attempt {@code epoch}'s call for a payment it claimed in {@code from} really starts: true when
   * the attempt is still the latest and the payment still in {@code from}. For a charge (PENDING)
   * the order must not have been cancelled meanwhile, and {@code charge_sent_at} is stamped now,
   * the start of the in-flight window a "never charged" decision waits out. False: the call must
   * not be made.
   */
  static boolean callStarts(DSLContext dsl, UUID orderId, PaymentStatus from, int epoch) {
    Condition current =
        PAYMENT
            .ORDER_ID
            .eq(orderId)
            .and(PAYMENT.STATUS.eq(from.name()))
            .and(PAYMENT.ATTEMPTS.eq(epoch));
    if (from != PENDING) {
      return dsl.fetchExists(PAYMENT, current);
    }
    return dsl.update(PAYMENT)
            .set(PAYMENT.CHARGE_SENT_AT, DbClock.now())
            .where(current)
            .and(PAYMENT.REFUND_REQUESTED.isFalse())
            .execute()
        == 1;
  }

  /**
   * The gateway refunded the charge: CAPTURED → REFUNDED. Not fenced (a refund is a fact). False
   * when the payment was not CAPTURED.
   */
  static boolean refunded(DSLContext dsl, UUID orderId) {
    UpdateQuery<PaymentRecord> q = move(dsl, orderId, CAPTURED, REFUNDED);
    q.addValue(PAYMENT.NEXT_ATTEMPT_AT, (OffsetDateTime) null);
    q.addValue(PAYMENT.LAST_ERROR, (String) null);
    return q.execute() == 1;
  }

  /**
   * The charge of the attempt that claimed {@code p} was refused for good (a decline): counted in
   * {@code declines}, the reason kept; PENDING → FAILED at the {@code max}th, else due again after
   * {@code wait}. True when this answer failed the payment; false when it did not, or another
   * attempt has claimed the payment since.
   */
  static boolean declined(DSLContext dsl, PaymentRecord p, int max, Duration wait, String why) {
    return refused(dsl, p, PENDING, FAILED, PAYMENT.DECLINES, p.getDeclines(), max, wait, why);
  }

  /**
   * The refund of the attempt that claimed {@code p} was refused for good: counted in {@code
   * refund_failures}, the reason kept; CAPTURED → REFUND_FAILED (an operator's case) at the {@code
   * max}th, else due again after {@code wait}. True when this answer gave the refund up.
   */
  static boolean refundRefused(
      DSLContext dsl, PaymentRecord p, int max, Duration wait, String why) {
    return refused(
        dsl,
        p,
        CAPTURED,
        REFUND_FAILED,
        PAYMENT.REFUND_FAILURES,
        p.getRefundFailures(),
        max,
        wait,
        why);
  }

  /**
   * A permanent answer for payment {@code p} in {@code from}: counts it in {@code refusals} (which
   * held {@code before} when claimed), keeps the reason, and moves the payment to {@code givenUp}
   * once {@code max} are reached, else leaves it in {@code from}, due after {@code wait}. Fenced on
   * the claim's attempt.
   */
  private static boolean refused(
      DSLContext dsl,
      PaymentRecord p,
      PaymentStatus from,
      PaymentStatus givenUp,
      TableField<PaymentRecord, Integer> refusals,
      int before,
      int max,
      Duration wait,
      String why) {
    requireAllowed(from, givenUp);
    int changed =
        dsl.update(PAYMENT)
            .set(refusals, refusals.plus(1))
            .set(
                PAYMENT.STATUS,
                DSL.when(refusals.plus(1).ge(max), givenUp.name()).otherwise(PAYMENT.STATUS))
            .set(PAYMENT.NEXT_ATTEMPT_AT, DbClock.nowPlus(wait))
            .set(PAYMENT.LAST_ERROR, InvoiceLifecycle.truncate(why))
            .set(PAYMENT.UPDATED_AT, DbClock.now())
            .where(PAYMENT.ORDER_ID.eq(p.getOrderId()))
            .and(PAYMENT.STATUS.eq(from.name()))
            .and(PAYMENT.ATTEMPTS.eq(p.getAttempts()))
            .execute();
    return changed == 1 && before + 1 >= max;
  }

  /**
   * Attempt {@code epoch} ended without an outcome (a transient answer): due again {@code wait}
   * from now, still in {@code status}, with {@code why}. Nothing when another attempt has claimed
   * it since, or it left {@code status}.
   */
  static void retryLater(
      DSLContext dsl, UUID orderId, PaymentStatus status, int epoch, Duration wait, String why) {
    dsl.update(PAYMENT)
        .set(PAYMENT.NEXT_ATTEMPT_AT, DbClock.nowPlus(wait))
        .set(PAYMENT.LAST_ERROR, InvoiceLifecycle.truncate(why))
        .where(PAYMENT.ORDER_ID.eq(orderId))
        .and(PAYMENT.STATUS.eq(status.name()))
        .and(PAYMENT.ATTEMPTS.eq(epoch))
        .execute();
  }

  /**
   * Attempt {@code epoch}'s look-up of a cancelled payment found no charge, but an earlier charge
   * request may still land: still PENDING, due again once it cannot ({@code charge_sent_at +
   * window}). Nothing when another attempt has claimed it since, or it left PENDING.
   */
  static void settleAfterWindow(DSLContext dsl, UUID orderId, int epoch, Duration window) {
    dsl.update(PAYMENT)
        .set(
            PAYMENT.NEXT_ATTEMPT_AT,
            DSL.greatest(DbClock.plus(PAYMENT.CHARGE_SENT_AT, window), DbClock.now()))
        .where(PAYMENT.ORDER_ID.eq(orderId))
        .and(PAYMENT.STATUS.eq(PENDING.name()))
        .and(PAYMENT.ATTEMPTS.eq(epoch))
        .execute();
  }

  /**
   * The update of payment {@code orderId} from {@code from} to {@code to}, guarded ({@code WHERE
   * status = <from>}) and stamped {@code updated_at}; the caller adds its own values and guards.
   * Refused (IllegalArgumentException) when {@link PaymentStatus} does not allow {@code from → to}:
   * such an update is never built.
   */
  static UpdateQuery<PaymentRecord> move(
      DSLContext dsl, UUID orderId, PaymentStatus from, PaymentStatus to) {
    requireAllowed(from, to);
    return update(dsl, orderId, PAYMENT.STATUS.eq(from.name()), to);
  }

  /**
   * {@link #move(DSLContext, UUID, PaymentStatus, PaymentStatus)} from any of {@code from} ({@code
   * WHERE status in (<from>)}); refused unless each of them may move to {@code to}.
   */
  static UpdateQuery<PaymentRecord> move(
      DSLContext dsl, UUID orderId, Set<PaymentStatus> from, PaymentStatus to) {
    if (from.isEmpty()) {
      throw new IllegalArgumentException("a transition to " + to + " needs a state to leave");
    }
    from.forEach(f -> requireAllowed(f, to));
    return update(
        dsl,
        orderId,
        PAYMENT.STATUS.in(from.stream().map(PaymentStatus::name).sorted().toList()),
        to);
  }

  private static UpdateQuery<PaymentRecord> update(
      DSLContext dsl, UUID orderId, Condition from, PaymentStatus to) {
    UpdateQuery<PaymentRecord> q = dsl.updateQuery(PAYMENT);
    q.addValue(PAYMENT.STATUS, to.name());
    q.addValue(PAYMENT.UPDATED_AT, DbClock.now());
    q.addConditions(PAYMENT.ORDER_ID.eq(orderId), from);
    return q;
  }

  /** Throws IllegalArgumentException unless {@link PaymentStatus} allows {@code from → to}. */
  private static void requireAllowed(PaymentStatus from, PaymentStatus to) {
    if (!PaymentStatus.isValidTransition(from, to)) {
      throw new IllegalArgumentException(
          "payment transition "
              + from
              + " -> "
              + to
              + " is not allowed; from "
              + from
              + " a payment may go to "
              + from.next());
    }
  }
}
