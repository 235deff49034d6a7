package dev.ordinal.order.internal;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ordinal.order.OrderLine;
import dev.ordinal.order.OrderView;
import dev.ordinal.order.PlacedOrder;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.List;

/** The JSON the API answers with. */
public final class OrderJson {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonFactory FACTORY = JSON.getFactory();

  private OrderJson() {}

  /** The answer to a placement: written field by field, no tree (it is on every POST). */
  public static String placed(PlacedOrder p) {
    return write(
        g -> {
          g.writeStringField("orderId", p.orderId().toString());
          g.writeStringField("status", "PLACED");
          g.writeStringField("customerId", p.order().customerId());
          g.writeStringField("currency", p.order().currency());
          g.writeStringField("channel", p.order().channel().wireName());
          if (p.order().invoiceSeries() != null) {
            g.writeStringField("invoiceSeries", p.order().invoiceSeries());
          }
          g.writeStringField("total", p.order().total().toPlainString());
          lines(g, p.order().lines());
          g.writeStringField("messageId", p.messageId().toString());
          g.writeStringField("createdAt", p.placedAt().toString());
        });
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

  /** The same lines as a {@code "lines"} field of the object {@code g} is writing. */
  public static void lines(JsonGenerator g, List<OrderLine> lines) throws IOException {
    g.writeArrayFieldStart("lines");
    for (OrderLine l : lines) {
      g.writeStartObject();
      g.writeStringField("sku", l.sku());
      g.writeNumberField("quantity", l.quantity());
      g.writeStringField("unitPrice", l.unitPrice().toPlainString());
      g.writeEndObject();
    }
    g.writeEndArray();
  }

  /** What writes an object's fields. */
  @FunctionalInterface
  public interface Fields {
    void write(JsonGenerator g) throws IOException;
  }

  /** One JSON object, written with a generator of the shared factory (no tree, no mapper). */
  public static String write(Fields fields) {
    StringWriter out = new StringWriter(256);
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      g.writeStartObject();
      fields.write(g);
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }
}
