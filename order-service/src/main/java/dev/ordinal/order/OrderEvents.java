package dev.ordinal.order;

/**
 * The events order-service publishes, keyed by order id: interactive orders on {@code
 * <prefix>.order}, bulk orders on {@code <prefix>.order-bulk} (priority lanes: a consumer can serve
 * people before schedulers). All events of one order travel on the same topic.
 */
public final class OrderEvents {
  public static final String AGGREGATE_TYPE = "order";
  public static final String BULK_AGGREGATE_TYPE = "order-bulk";
  public static final String ORDER_PLACED = "OrderPlaced";
  public static final String ORDER_CANCELLED = "OrderCancelled";

  private OrderEvents() {}

  /** The aggregate type, hence the topic, of an order on {@code channel}. */
  public static String aggregateType(Channel channel) {
    return channel == Channel.BULK ? BULK_AGGREGATE_TYPE : AGGREGATE_TYPE;
  }
}
