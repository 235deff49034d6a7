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
 *       not a gap). The charge is never taken, or refunded.
 * </ul>
 */
public final class InvoiceHandler implements MessageHandler {
  public static final String ORDER_PLACED = "OrderPlaced";
  public static final String ORDER_CANCELLED = "OrderCancelled";
  public static final String DEFAULT_SERIES = "DEFAULT";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Clock clock;
  private final InvoiceEvents events;
  private final Map<String, BiConsumer<DSLContext, Envelope>> byType;

  public InvoiceHandler(Clock clock) {
    this.clock = clock;
    this.events = new InvoiceEvents(clock);
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
        .set(INVOICE.STATUS, InvoiceStatus.DRAFT.name())
        .set(INVOICE.SOURCE_MESSAGE_ID, message.messageId())
        .set(INVOICE.CREATED_AT, now)
        .onConflict(INVOICE.ORDER_ID)
        .doNothing()
        .execute();
    tx.insertInto(PAYMENT)
        .set(PAYMENT.ORDER_ID, orderId)
        .set(PAYMENT.AMOUNT, total)
        .set(PAYMENT.CURRENCY, currency)
        .set(PAYMENT.UPDATED_AT, now)
        .onConflict(PAYMENT.ORDER_ID)
        .doNothing()
        .execute();
  }

  private void orderCancelled(DSLContext tx, Envelope message) {
    JsonNode n = parse(message);
    UUID orderId = uuid(n, "orderId", message);
    String reason = n.hasNonNull("reason") ? n.get("reason").asText() : "order cancelled";
    InvoiceSeries.cancel(tx, orderId, truncate(reason), OffsetDateTime.now(clock), events);
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
