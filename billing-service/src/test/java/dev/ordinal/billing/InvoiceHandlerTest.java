package dev.ordinal.billing;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ordinal.contracts.EventType;
import dev.ordinal.contracts.MalformedEventException;
import dev.ordinal.messaging.inbox.Envelope;
import dev.ordinal.messaging.inbox.PoisonMessageException;
import java.time.Clock;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;

/**
 * A payload that is not its event is poison, refused before any statement: the inbox consumer
 * dead-letters it with the contract's reason. (What a good payload does is proven against
 * PostgreSQL by the ITs.)
 */
class InvoiceHandlerTest {
  /** No connection: any statement would fail with a different exception. */
  static final DSLContext NO_DATABASE = DSL.using(SQLDialect.POSTGRES);

  static final String ORDER = "0b9e6f0c-3c1e-4a57-9d3f-2f7a8e5b1c42";

  final InvoiceHandler handler = new InvoiceHandler(Clock.systemUTC());

  static Envelope message(String eventType, String payload) {
    return new Envelope("m-1", eventType, "order", ORDER, payload, "t", 0, 0L);
  }

  @Test
  void anOrderPlacedWithoutARequiredFieldIsPoisonNamingTheField() {
    String noTotal =
        "{\"orderId\":\"" + ORDER + "\",\"customerId\":\"c\",\"currency\":\"EUR\",\"x\":1}";

    assertThatThrownBy(
            () -> handler.handle(NO_DATABASE, message(EventType.ORDER_PLACED.wireName(), noTotal)))
        .isInstanceOf(PoisonMessageException.class)
        .hasMessage("Payload of message m-1 refused: OrderPlaced payload has no total")
        .hasCauseInstanceOf(MalformedEventException.class);
  }

  @Test
  void aMalformedOrderIdOrAPayloadThatIsNoJsonIsPoison() {
    assertThatThrownBy(
            () ->
                handler.handle(
                    NO_DATABASE,
                    message(EventType.ORDER_CANCELLED.wireName(), "{\"orderId\":\"not-a-uuid\"}")))
        .isInstanceOf(PoisonMessageException.class)
        .hasMessageStartingWith(
            "Payload of message m-1 refused: OrderCancelled payload has a malformed orderId: ");
    assertThatThrownBy(
            () -> handler.handle(NO_DATABASE, message(EventType.ORDER_PLACED.wireName(), "{oops")))
        .isInstanceOf(PoisonMessageException.class)
        .hasMessageStartingWith(
            "Payload of message m-1 refused: OrderPlaced payload is not JSON: ");
  }

  @Test
  void anEventBillingDoesNotHandleIsPoison() {
    assertThatThrownBy(
            () ->
                handler.handle(
                    NO_DATABASE,
                    message(
                        EventType.INVOICE_ISSUED.wireName(), "{\"orderId\":\"" + ORDER + "\"}")))
        .isInstanceOf(PoisonMessageException.class)
        .hasMessage("billing has no handler for event type InvoiceIssued");
    assertThatThrownBy(() -> handler.handle(NO_DATABASE, message("OrderShipped", "{}")))
        .isInstanceOf(PoisonMessageException.class)
        .hasMessage("billing has no handler for event type OrderShipped");
  }
}
