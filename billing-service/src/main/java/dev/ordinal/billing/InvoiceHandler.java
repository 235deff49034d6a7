package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;

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
 * Turns order events into invoices. One invoice per order: the insert does nothing when the order
 * already has one (natural key), so the same order under two message ids still yields one invoice.
 */
public final class InvoiceHandler implements MessageHandler {
  public static final String ORDER_PLACED = "OrderPlaced";

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Clock clock;
  private final Map<String, BiConsumer<DSLContext, Envelope>> byType;

  public InvoiceHandler(Clock clock) {
    this.clock = clock;
    this.byType = Map.of(ORDER_PLACED, this::orderPlaced);
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
    tx.insertInto(INVOICE)
        .set(INVOICE.ORDER_ID, UUID.fromString(text(n, "orderId", message)))
        .set(INVOICE.CUSTOMER_ID, text(n, "customerId", message))
        .set(INVOICE.CURRENCY, text(n, "currency", message))
        .set(INVOICE.TOTAL, new BigDecimal(text(n, "total", message)))
        .set(INVOICE.SOURCE_MESSAGE_ID, message.messageId())
        .set(INVOICE.CREATED_AT, OffsetDateTime.now(clock))
        .onConflict(INVOICE.ORDER_ID)
        .doNothing()
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
}
