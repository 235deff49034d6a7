package dev.ordinal.order;

/** The events order-service publishes, on topic {@code <prefix>.order}, keyed by order id. */
public final class OrderEvents {
  public static final String AGGREGATE_TYPE = "order";
  public static final String ORDER_PLACED = "OrderPlaced";
  public static final String ORDER_CANCELLED = "OrderCancelled";

  private OrderEvents() {}
}
