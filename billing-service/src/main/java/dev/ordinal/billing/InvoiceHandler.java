package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.PAYMENT;

import dev.ordinal.contracts.EventCodec;
import dev.ordinal.contracts.EventPayload;
import dev.ordinal.contracts.EventType;
import dev.ordinal.contracts.MalformedEventException;
import dev.ordinal.contracts.OrderCancelledV1;
import dev.ordinal.contracts.OrderPlacedV1;
import dev.ordinal.messaging.inbox.Envelope;
import dev.ordinal.messaging.inbox.MessageHandler;
import dev.ordinal.messaging.inbox.PoisonMessageException;
import dev.ordinal.runtime.Tracing;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.UUID;
import org.jooq.CommonTableExpression;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record2;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * Turns order events into draft invoices and pending charges, inside the inbox transaction.
 *
 * <ul>
 *   <li>{@code OrderPlaced}: one draft invoice per order (natural key: {@code ON CONFLICT
 *       (order_id) DO NOTHING}, so the same order under two message ids still yields one) in the
 *       order's series, without a number; one pending charge per order.
 *   <li>{@code OrderCancelled}: a draft becomes {@code CANCELLED} and consumes no number; a
 *       numbered invoice keeps its number and is marked cancelled, and what happens to a number not
 *       issued yet is the series' law ({@link InvoiceSeries.CancelRule}: voided with the reason, or
 *       issued and then cancelled); an issued one stays issued (a credit note is the legal way out,
 *       not a gap). The charge is never taken, or refunded. The cancellation is also recorded
 *       ({@code order_cancellation}), so an {@code OrderPlaced} that arrives after it (out of
 *       order) inserts the invoice as {@code CANCELLED}, without a number, and the payment as
 *       {@code CANCELLED}, never charged.
 * </ul>
 *
 * <p>Both hold a transaction advisory lock on the order ({@link #lockFor}, taken with the inbox row
 * before anything is written), so a placement and a cancellation of one order applied at the same
 * moment (by two instances) see each other's effect. Payloads are read into the contract's records
 * ({@code dev.ordinal.contracts}); one that is not its event (not JSON, a required field missing or
 * malformed) is poison.
 */
public final class InvoiceHandler implements MessageHandler {

  public static final String DEFAULT_SERIES = "DEFAULT";

  /** First half of the advisory lock key of an order's placement and cancellation: "ORDB". */
  static final int ORDER_LOCK_NAMESPACE = 0x4F524442;

  private static final Table<?> ORDER_CANCELLATION = DSL.table(DSL.name("order_cancellation"));
  private static final Field<UUID> CANCELLATION_ORDER =
      DSL.field(DSL.name("order_id"), SQLDataType.UUID);
  private static final Field<String> CANCELLATION_REASON =
      DSL.field(DSL.name("reason"), String.class);
  private static final Field<OffsetDateTime> CANCELLATION_AT =
      DSL.field(DSL.name("cancelled_at"), SQLDataType.TIMESTAMPWITHTIMEZONE);
  private static final Field<String> CANCELLATION_MESSAGE =
      DSL.field(DSL.name("source_message_id"), String.class);

  private final Clock clock;

  public InvoiceHandler(Clock clock) {
    this.clock = clock;
  }

  /**
   * The order's transaction advisory lock, which the inbox takes in the inbox row's statement: one
   * round trip for both.
   *
   * @throws PoisonMessageException when the message is not an order event billing reads
   */
  @Override
  public Field<?> lockFor(Envelope message) {
    return lockOrder(read(message).orderId());
  }

  /**
   * Applies the message: one statement for an {@code OrderPlaced}. The order's lock ({@link
   * #lockFor}) is held by then when the inbox applies it, so this transaction's statements see a
   * cancellation committed meanwhile; a caller that applies messages without the inbox (a test, a
   * lab) applies them one at a time.
   */
  @Override
  public void handle(DSLContext tx, Envelope message) {
    EventPayload event = read(message);
    if (event instanceof OrderPlacedV1 placed) {
      orderPlaced(tx, message, placed);
    } else {
      orderCancelled(tx, message, (OrderCancelledV1) event);
    }
  }

  /** The order event in {@code message}; poison when it is no event billing reads. */
  private static EventPayload read(Envelope message) {
    EventType type =
        EventType.fromWire(message.eventType())
            .filter(t -> t == EventType.ORDER_PLACED || t == EventType.ORDER_CANCELLED)
            .orElseThrow(
                () ->
                    new PoisonMessageException(
                        "billing has no handler for event type " + message.eventType()));
    return read(message, type);
  }

  /**
   * One statement: the cancellation recorded for the order, if any, then the draft invoice and the
   * pending charge (both {@code CANCELLED}, never numbered or charged, when the cancellation came
   * first).
   */
  private void orderPlaced(DSLContext tx, Envelope message, OrderPlacedV1 placed) {
    UUID orderId = placed.orderId();
    String currency = placed.currency();
    BigDecimal total = placed.total();
    String customer = placed.customerId();
    String series = placed.invoiceSeries() != null ? placed.invoiceSeries() : DEFAULT_SERIES;
    // absent or unknown in the payload: interactive (the contract reads it so)
    String channel = placed.channel().wireName();
    OffsetDateTime now = OffsetDateTime.now(clock);
    // max() of the at most one row: always one row, nulls when the order was not cancelled
    CommonTableExpression<Record2<String, OffsetDateTime>> c =
        DSL.name("c")
            .fields("reason", "cancelled_at")
            .as(
                DSL.select(DSL.max(CANCELLATION_REASON), DSL.max(CANCELLATION_AT))
                    .from(ORDER_CANCELLATION)
                    .where(CANCELLATION_ORDER.eq(orderId)));
    Field<String> reason = c.field(0, String.class);
    Field<OffsetDateTime> cancelledAt = c.field(1, OffsetDateTime.class);
    Condition cancelled = reason.isNotNull();
    CommonTableExpression<?> invoice =
        DSL.name("invoice_row")
            .as(
                DSL.insertInto(
                        INVOICE,
                        INVOICE.ORDER_ID,
                        INVOICE.CUSTOMER_ID,
                        INVOICE.CURRENCY,
                        INVOICE.TOTAL,
                        INVOICE.SERIES,
                        INVOICE.CHANNEL,
                        INVOICE.STATUS,
                        INVOICE.CANCELLED_AT,
                        INVOICE.CANCEL_REASON,
                        INVOICE.SOURCE_MESSAGE_ID,
                        INVOICE.TRACEPARENT,
                        INVOICE.TRACESTATE,
                        INVOICE.CREATED_AT)
                    .select(
                        DSL.select(
                                DSL.val(orderId),
                                DSL.val(customer),
                                DSL.val(currency),
                                DSL.val(total),
                                DSL.val(series),
                                DSL.val(channel),
                                DSL.when(cancelled, InvoiceStatus.CANCELLED.name())
                                    .otherwise(InvoiceStatus.DRAFT.name()),
                                cancelledAt,
                                reason,
                                DSL.val(message.messageId()),
                                DSL.val(Tracing.currentTraceparent()),
                                DSL.val(
                                    Tracing.fit(
                                        Tracing.currentTracestate(),
                                        Tracing.MAX_STORED_TRACESTATE)),
                                DSL.val(now))
                            .from(c))
                    .onConflict(INVOICE.ORDER_ID)
                    .doNothing()
                    .returningResult(INVOICE.ID));
    tx.with(c)
        .with(invoice)
        .insertInto(
            PAYMENT,
            PAYMENT.ORDER_ID,
            PAYMENT.AMOUNT,
            PAYMENT.CURRENCY,
            PAYMENT.UPDATED_AT,
            PAYMENT.STATUS,
            PAYMENT.REFUND_REQUESTED)
        // cancelled before it was placed: nothing to charge, ever
        .select(
            DSL.select(
                    DSL.val(orderId),
                    DSL.val(total),
                    DSL.val(currency),
                    DSL.val(now),
                    DSL.when(cancelled, "CANCELLED").otherwise("PENDING"),
                    DSL.field(cancelled))
                .from(c))
        .onConflict(PAYMENT.ORDER_ID)
        .doNothing()
        .execute();
  }

  /**
   * The lock that serializes the placement and the cancellation of one order (until the transaction
   * ends).
   */
  private static Field<?> lockOrder(UUID orderId) {
    return DSL.field(
        "pg_advisory_xact_lock({0}, {1})",
        Object.class, DSL.val(ORDER_LOCK_NAMESPACE), DSL.val(orderId.hashCode()));
  }

  private void orderCancelled(DSLContext tx, Envelope message, OrderCancelledV1 cancelled) {
    UUID orderId = cancelled.orderId();
    String reason = cancelled.reason() != null ? cancelled.reason() : "order cancelled";
    OffsetDateTime now = OffsetDateTime.now(clock);
    // recorded whether or not the order is known yet: an OrderPlaced after it changes nothing
    tx.insertInto(ORDER_CANCELLATION)
        .set(CANCELLATION_ORDER, orderId)
        .set(CANCELLATION_REASON, truncate(reason))
        .set(CANCELLATION_AT, now)
        .set(CANCELLATION_MESSAGE, message.messageId())
        .onConflict(CANCELLATION_ORDER)
        .doNothing()
        .execute();
    InvoiceLifecycle.cancel(tx, orderId, truncate(reason), now);
    // the charge: never taken if not taken yet, refunded if it was (PaymentCollector)
    tx.update(PAYMENT)
        .set(PAYMENT.REFUND_REQUESTED, true)
        .set(PAYMENT.NEXT_ATTEMPT_AT, (OffsetDateTime) null)
        .where(PAYMENT.ORDER_ID.eq(orderId))
        .execute();
  }

  /** The payload as the contract's record; poison when it is not one, naming what is wrong. */
  private static EventPayload read(Envelope message, EventType type) {
    try {
      return EventCodec.fromJson(type, message.payload());
    } catch (MalformedEventException e) {
      throw new PoisonMessageException(
          "Payload of message " + message.messageId() + " refused: " + e.getMessage(), e);
    }
  }

  private static String truncate(String s) {
    return s.length() > 400 ? s.substring(0, 400) : s;
  }
}
