package dev.ordinal.contracts;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * {@code OrderPlaced}, version 1: order-service placed an order. Written in the order's
 * transaction, on {@code <prefix>.order} or {@code <prefix>.order-bulk} by its channel, keyed by
 * the order id.
 *
 * <pre>{@code
 * {"orderId":"…","customerId":"c-1042","currency":"EUR","channel":"interactive",
 *  "invoiceSeries":"F2026-A","total":"31.00",
 *  "lines":[{"sku":"BOOK-1","quantity":2,"unitPrice":"12.50"}],"placedAt":"2026-03-02T12:00:00Z"}
 * }</pre>
 *
 * <p>Required: {@code orderId}, {@code customerId}, {@code currency} (not blank), {@code total}.
 * Optional: {@code channel} (absent or unknown reads as {@link Channel#INTERACTIVE}: payloads
 * written before priority lanes have none), {@code invoiceSeries} (absent: billing's default
 * series; not written when null), {@code lines} (not written when empty) and {@code placedAt} (not
 * written when null): order-service always writes them, but no consumer needs them and the demo's
 * and benchmarks' hand-made orders have none. Amounts are strings in plain notation, as written
 * ({@code "31.00"}).
 *
 * @param invoiceSeries the series to number the invoice in, or null for billing's default
 * @param total the order's total, in {@code currency}
 * @param lines the order's lines, never null
 * @param placedAt when the order was placed (order-service's clock), or null
 */
@JsonPropertyOrder({
  "orderId",
  "customerId",
  "currency",
  "channel",
  "invoiceSeries",
  "total",
  "lines",
  "placedAt"
})
public record OrderPlacedV1(
    UUID orderId,
    String customerId,
    String currency,
    Channel channel,
    @JsonInclude(JsonInclude.Include.NON_NULL) String invoiceSeries,
    BigDecimal total,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Line> lines,
    @JsonInclude(JsonInclude.Include.NON_NULL) Instant placedAt)
    implements EventPayload {

  private static final EventType TYPE = EventType.ORDER_PLACED;

  public OrderPlacedV1 {
    Required.present(TYPE, "orderId", orderId);
    Required.text(TYPE, "customerId", customerId);
    Required.text(TYPE, "currency", currency);
    Required.present(TYPE, "total", total);
    channel = channel == null ? Channel.INTERACTIVE : channel;
    if (lines == null) {
      lines = List.of();
    } else {
      for (int i = 0; i < lines.size(); i++) {
        Required.present(TYPE, "lines[" + i + "]", lines.get(i));
      }
      lines = List.copyOf(lines);
    }
  }

  @Override
  public EventType type() {
    return TYPE;
  }

  /**
   * One line of the order. All three fields are required.
   *
   * @param quantity at least 1
   * @param unitPrice a string in plain notation on the wire ({@code "12.50"})
   */
  @JsonPropertyOrder({"sku", "quantity", "unitPrice"})
  public record Line(String sku, int quantity, BigDecimal unitPrice) {
    public Line {
      Required.text(TYPE, "sku", sku);
      Required.positive(TYPE, "quantity", quantity);
      Required.present(TYPE, "unitPrice", unitPrice);
    }
  }
}
