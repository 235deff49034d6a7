package dev.ordinal.contracts;

import java.util.UUID;

/** The payload of one event on the topics: one of the versioned records of this contract. */
public sealed interface EventPayload
    permits OrderPlacedV1, OrderCancelledV1, InvoiceIssuedV1, InvoiceVoidedV1 {

  /** The event this payload is: the {@code event-type} it travels under. */
  EventType type();

  /** The order it is about: every event is keyed by its order id. */
  UUID orderId();
}
