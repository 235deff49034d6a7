package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.PAYMENT;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordinal.messaging.Envelope;
import dev.ordinal.messaging.MessageHandler;
import dev.ordinal.messaging.PoisonMessageException;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.UUID;
import java.util.function.BiConsumer;
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
 * <p>Both take a transaction advisory lock on the order first, so a placement and a cancellation of
 * one order applied at the same moment (by two instances) see each other's effect.
 */
public final class InvoiceHandler implements MessageHandler {
  public static final String ORDER_PLACED = "OrderPlaced";
  public static final String ORDER_CANCELLED = "OrderCancelled";
  public static final String DEFAULT_SERIES = "DEFAULT";

  private static final ObjectMapper JSON = new ObjectMapper();

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
  private final Map<String, BiConsumer<DSLContext, Envelope>> byType;

  public InvoiceHandler(Clock clock) {
    this.clock = clock;
    this.byType = Map.of(ORDER_PLACED, this::orderPlaced, ORDER_CANCELLED, this::orderCancelled);
  }

  @Override
  public void handle(DSLContext tx, Envelope message) {
    BiConsumer<DSLContext, Envelope> h = byType.get(message.eventType());
    if (h == null) {
      throw new PoisonMessageException(
          "billing has no handler for event type " + message.eventType());
    }
    h.accept(tx, message);
  }

  private void orderPlaced(DSLContext tx, Envelope message) {
    JsonNode n = parse(message);
    UUID orderId = uuid(n, "orderId", message);
    lockOrder(tx, orderId);
    Record2<String, OffsetDateTime> cancelled =
        tx.select(CANCELLATION_REASON, CANCELLATION_AT)
            .from(ORDER_CANCELLATION)
            .where(CANCELLATION_ORDER.eq(orderId))
            .fetchOne();
    String currency = text(n, "currency", message);
    BigDecimal total = decimal(n, "total", message);
    String series =
        n.hasNonNull("invoiceSeries") ? n.get("invoiceSeries").asText() : DEFAULT_SERIES;
    String channel =
        n.hasNonNull("channel") && n.get("channel").asText().equals("bulk")
            ? "bulk"
            : "interactive";
    OffsetDateTime now = OffsetDateTime.now(clock);
    tx.insertInto(INVOICE)
        .set(INVOICE.ORDER_ID, orderId)
        .set(INVOICE.CUSTOMER_ID, text(n, "customerId", message))
        .set(INVOICE.CURRENCY, currency)
        .set(INVOICE.TOTAL, total)
        .set(INVOICE.SERIES, series)
        .set(INVOICE.CHANNEL, channel)
        .set(
            INVOICE.STATUS,
            cancelled == null ? InvoiceStatus.DRAFT.name() : InvoiceStatus.CANCELLED.name())
        .set(INVOICE.CANCELLED_AT, cancelled == null ? null : cancelled.value2())
        .set(INVOICE.CANCEL_REASON, cancelled == null ? null : cancelled.value1())
        .set(INVOICE.SOURCE_MESSAGE_ID, message.messageId())
        .set(INVOICE.CREATED_AT, now)
        .onConflict(INVOICE.ORDER_ID)
        .doNothing()
        .execute();
    var payment =
        tx.insertInto(PAYMENT)
            .set(PAYMENT.ORDER_ID, orderId)
            .set(PAYMENT.AMOUNT, total)
            .set(PAYMENT.CURRENCY, currency)
            .set(PAYMENT.UPDATED_AT, now);
    if (cancelled != null) {
      // cancelled before it was placed: nothing to charge, ever
      payment
          .set(PAYMENT.STATUS, "CANCELLED")
          .set(PAYMENT.REFUND_REQUESTED, true)
          .set(PAYMENT.NEXT_ATTEMPT_AT, (OffsetDateTime) null);
    }
    payment.onConflict(PAYMENT.ORDER_ID).doNothing().execute();
  }

  /** Serializes the placement and the cancellation of one order (until the transaction ends). */
  private static void lockOrder(DSLContext tx, UUID orderId) {
    tx.select(
            DSL.field(
                "pg_advisory_xact_lock({0}, {1})",
                Object.class, DSL.val(ORDER_LOCK_NAMESPACE), DSL.val(orderId.hashCode())))
        .fetch();
  }

  private void orderCancelled(DSLContext tx, Envelope message) {
    JsonNode n = parse(message);
    UUID orderId = uuid(n, "orderId", message);
    String reason = n.hasNonNull("reason") ? n.get("reason").asText() : "order cancelled";
    lockOrder(tx, orderId);
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

  private static JsonNode parse(Envelope message) {
    try {
      return JSON.readTree(message.payload());
    } catch (JsonProcessingException e) {
      throw new PoisonMessageException(
          "Payload of message " + message.messageId() + " is not JSON: " + e.getOriginalMessage());
    }
  }

  private static String text(JsonNode n, String field, Envelope message) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull() || v.asText().isBlank()) {
      throw new PoisonMessageException(
          "Payload of message " + message.messageId() + " has no " + field);
    }
    return v.asText();
  }

  private static UUID uuid(JsonNode n, String field, Envelope message) {
    try {
      return UUID.fromString(text(n, field, message));
    } catch (IllegalArgumentException e) {
      throw new PoisonMessageException(
          "Payload of message " + message.messageId() + " has a malformed " + field);
    }
  }

  private static BigDecimal decimal(JsonNode n, String field, Envelope message) {
    try {
      return new BigDecimal(text(n, field, message));
    } catch (NumberFormatException e) {
      throw new PoisonMessageException(
          "Payload of message " + message.messageId() + " has a malformed " + field);
    }
  }

  private static String truncate(String s) {
    return s.length() > 400 ? s.substring(0, 400) : s;
  }
}
