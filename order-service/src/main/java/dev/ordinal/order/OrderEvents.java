package dev.ordinal.order;

import dev.ordinal.contracts.AggregateType;
import dev.ordinal.contracts.OrderCancelledV1;
import dev.ordinal.contracts.OrderPlacedV1;
import java.time.Instant;
import java.util.UUID;

/**
 * The events order-service publishes ({@code OrderPlaced}, {@code OrderCancelled}, as the records
 * of {@code dev.ordinal.contracts}), keyed by order id: interactive orders on {@code
 * <prefix>.order}, bulk orders on {@code <prefix>.order-bulk} (priority lanes: a consumer can serve
 * people before schedulers). All events of one order travel on the same topic.
 */
public final class OrderEvents {

  private OrderEvents() {}

  /** The aggregate type, hence the topic, of an order on {@code channel}. */
  public static String aggregateType(Channel channel) {
    return AggregateType.of(channel.contract()).wireName();
  }

  /** {@code OrderPlaced} for {@code order}, placed as {@code orderId} at {@code at}. */
  public static OrderPlacedV1 placed(UUID orderId, NewOrder order, Instant at) {
    return new OrderPlacedV1(
        orderId,
        order.customerId(),
        order.currency(),
        order.channel().contract(),
        order.invoiceSeries(),
        order.total(),
        order.lines().stream()
            .map(l -> new OrderPlacedV1.Line(l.sku(), l.quantity(), l.unitPrice()))
            .toList(),
        at);
  }

  /** {@code OrderCancelled} of {@code orderId} at {@code at}; {@code reason} may be null. */
  static OrderCancelledV1 cancelled(UUID orderId, String reason, Instant at) {
    return new OrderCancelledV1(orderId, reason, at);
  }
}
