package dev.ordinal.order.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ordinal.order.OrderLine;
import dev.ordinal.order.OrderView;
import dev.ordinal.order.PlacedOrder;
import java.util.List;

/** The JSON the API answers with. */
public final class OrderJson {
  private static final ObjectMapper JSON = new ObjectMapper();

  private OrderJson() {}

  public static String placed(PlacedOrder p) {
    ObjectNode n = JSON.createObjectNode();
    n.put("orderId", p.orderId().toString());
    n.put("status", "PLACED");
    n.put("customerId", p.order().customerId());
    n.put("currency", p.order().currency());
    n.put("channel", p.order().channel().wireName());
    if (p.order().invoiceSeries() != null) {
      n.put("invoiceSeries", p.order().invoiceSeries());
    }
    n.put("total", p.order().total().toPlainString());
    lines(n.putArray("lines"), p.order().lines());
    n.put("messageId", p.messageId().toString());
    n.put("createdAt", p.placedAt().toString());
    return n.toString();
  }

  public static String view(OrderView o) {
    ObjectNode n = JSON.createObjectNode();
    n.put("orderId", o.orderId().toString());
    n.put("status", o.status().name());
    n.put("customerId", o.customerId());
    n.put("currency", o.currency());
    n.put("channel", o.channel().wireName());
    if (o.invoiceSeries() != null) {
      n.put("invoiceSeries", o.invoiceSeries());
    }
    n.put("total", o.total().toPlainString());
    lines(n.putArray("lines"), o.lines());
    n.put("createdAt", o.createdAt().toString());
    if (o.cancelledAt() != null) {
      n.put("cancelledAt", o.cancelledAt().toString());
    }
    return n.toString();
  }

  /** The lines as the API, the events and the client write them: sku, quantity, unitPrice. */
  public static void lines(ArrayNode array, List<OrderLine> lines) {
    for (OrderLine l : lines) {
      array
          .addObject()
          .put("sku", l.sku())
          .put("quantity", l.quantity())
          .put("unitPrice", l.unitPrice().toPlainString());
    }
  }
}
