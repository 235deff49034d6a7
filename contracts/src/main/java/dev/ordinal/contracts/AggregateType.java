package dev.ordinal.contracts;

import java.util.Optional;

/**
 * The aggregate an event belongs to, as the outbox's {@code aggregate_type} column and the {@code
 * aggregate-type} header name it. It is also the topic: the outbox router publishes to {@code
 * <prefix>.<aggregate type>}. Every event is keyed by its order id.
 */
public enum AggregateType {
  /** Interactive orders: {@code OrderPlaced} and {@code OrderCancelled}. */
  ORDER("order"),
  /** Bulk orders, on a lane of their own so people are served before schedulers. */
  ORDER_BULK("order-bulk"),
  /** Billing's own events: {@code InvoiceIssued} and {@code InvoiceVoided}. */
  INVOICE("invoice");

  private final String wireName;

  AggregateType(String wireName) {
    this.wireName = wireName;
  }

  /** The name on the wire, e.g. {@code order-bulk}. */
  public String wireName() {
    return wireName;
  }

  /** The topic of this aggregate type under {@code prefix}: {@code <prefix>.<wire name>}. */
  public String topic(String prefix) {
    return prefix + "." + wireName;
  }

  /** The aggregate type, hence the topic, of the events of an order on {@code channel}. */
  public static AggregateType of(Channel channel) {
    return channel == Channel.BULK ? ORDER_BULK : ORDER;
  }

  /** The aggregate type named {@code wireName}, or empty for one this contract does not know. */
  public static Optional<AggregateType> fromWire(String wireName) {
    for (AggregateType t : values()) {
      if (t.wireName.equals(wireName)) {
        return Optional.of(t);
      }
    }
    return Optional.empty();
  }
}
