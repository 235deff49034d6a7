package dev.ordinal.contracts;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.time.Instant;
import java.util.UUID;

/**
 * {@code OrderCancelled}, version 1: order-service cancelled a placed order. Written in the
 * cancelling transaction, on the topic of the order's channel, keyed by the order id.
 *
 * <pre>{@code
 * {"orderId":"…","reason":"wrong address","cancelledAt":"2026-03-02T12:05:00Z"}
 * }</pre>
 *
 * <p>Required: {@code orderId}. Optional, not written when null: {@code reason} (free text; billing
 * records "order cancelled" without one) and {@code cancelledAt} (order-service always writes it;
 * hand-made cancellations of the demo have none).
 *
 * @param reason why, or null
 * @param cancelledAt when (order-service's clock), or null
 */
@JsonPropertyOrder({"orderId", "reason", "cancelledAt"})
@JsonInclude(JsonInclude.Include.NON_NULL)
public record OrderCancelledV1(UUID orderId, String reason, Instant cancelledAt)
    implements EventPayload {

  private static final EventType TYPE = EventType.ORDER_CANCELLED;

  public OrderCancelledV1 {
    Required.present(TYPE, "orderId", orderId);
  }

  @Override
  public EventType type() {
    return TYPE;
  }
}
