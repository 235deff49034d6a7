package dev.ordinal.order.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ordinal.order.Channel;
import dev.ordinal.order.NewOrder;
import dev.ordinal.order.OrderLine;
import dev.ordinal.order.PlacedOrder;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class OrderJsonTest {
  static final ObjectMapper JSON = new ObjectMapper();

  /** The streamed answer is byte for byte what the tree model wrote before. */
  @Test
  void thePlacementAnswerIsTheSameTextTheTreeModelWrote() {
    NewOrder order =
        new NewOrder(
            "c-\"quoted\"-ü",
            "EUR",
            Channel.BULK,
            "SERIES-A",
            List.of(
                new OrderLine("SKU-1", 2, new BigDecimal("9.90")),
                new OrderLine("SKU-2", 1, new BigDecimal("0.05"))));
    PlacedOrder p =
        new PlacedOrder(
            UUID.fromString("00000000-0000-0000-0000-000000000001"),
            UUID.fromString("00000000-0000-0000-0000-000000000002"),
            order,
            Instant.parse("2026-12-02T09:00:00.123Z"));

    ObjectNode n = JSON.createObjectNode();
    n.put("orderId", p.orderId().toString());
    n.put("status", "PLACED");
    n.put("customerId", order.customerId());
    n.put("currency", order.currency());
    n.put("channel", order.channel().wireName());
    n.put("invoiceSeries", order.invoiceSeries());
    n.put("total", order.total().toPlainString());
    OrderJson.lines(n.putArray("lines"), order.lines());
    n.put("messageId", p.messageId().toString());
    n.put("createdAt", p.placedAt().toString());

    assertThat(OrderJson.placed(p)).isEqualTo(n.toString());
  }
}
