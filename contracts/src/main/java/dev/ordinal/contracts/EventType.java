package dev.ordinal.contracts;

import java.util.Optional;

/**
 * The events on Ordinal's topics, by the name they travel under (the {@code event-type} header and
 * the outbox's {@code event_type} column), each with the record its payload reads into.
 */
public enum EventType {
  /** An order was placed; on {@link AggregateType#ORDER} or {@link AggregateType#ORDER_BULK}. */
  ORDER_PLACED("OrderPlaced", OrderPlacedV1.class),
  /** A placed order was cancelled; on the topic of the order's channel. */
  ORDER_CANCELLED("OrderCancelled", OrderCancelledV1.class),
  /** The integrator holds the invoice's number; on {@link AggregateType#INVOICE}. */
  INVOICE_ISSUED("InvoiceIssued", InvoiceIssuedV1.class),
  /** A reserved number was voided with a reason; on {@link AggregateType#INVOICE}. */
  INVOICE_VOIDED("InvoiceVoided", InvoiceVoidedV1.class);

  private final String wireName;
  private final Class<? extends EventPayload> payloadType;

  EventType(String wireName, Class<? extends EventPayload> payloadType) {
    this.wireName = wireName;
    this.payloadType = payloadType;
  }

  /** The name on the wire, e.g. {@code OrderPlaced}. */
  public String wireName() {
    return wireName;
  }

  /** The record its payload reads into. */
  public Class<? extends EventPayload> payloadType() {
    return payloadType;
  }

  /** The event type named {@code wireName}, or empty for one this contract does not know. */
  public static Optional<EventType> fromWire(String wireName) {
    for (EventType t : values()) {
      if (t.wireName.equals(wireName)) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }
}
