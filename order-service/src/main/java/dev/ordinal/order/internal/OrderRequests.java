package dev.ordinal.order.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordinal.order.Channel;
import dev.ordinal.order.NewOrder;
import dev.ordinal.order.OrderLine;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads a {@code POST /orders} body into a {@link NewOrder}, checking each field and naming the
 * first one that is wrong: 400 for a body that is not a JSON object, 422 for a field that is
 * missing or out of range.
 */
public final class OrderRequests {
  public static final int MAX_QUANTITY = 1_000_000;
  public static final BigDecimal MAX_UNIT_PRICE = new BigDecimal("1000000000");

  private static final ObjectMapper JSON = new ObjectMapper();

  private OrderRequests() {}

  /** A parsed request and the hash of its canonical form, for idempotency checks. */
  public record Parsed(NewOrder order, String hash) {}

  public static Parsed parse(byte[] body) {
    if (body == null || body.length == 0) {
      throw Problem.badRequest("body", "The request body is empty; send a JSON object.")
          .toException();
    }
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (JsonProcessingException e) {
      throw Problem.badRequest(
              "body",
              "The request body is not valid JSON (line "
                  + e.getLocation().getLineNr()
                  + ", column "
                  + e.getLocation().getColumnNr()
                  + "): "
                  + e.getOriginalMessage())
          .toException();
    } catch (java.io.IOException e) {
      throw Problem.badRequest("body", "The request body could not be read.").toException();
    }
    if (root == null || !root.isObject()) {
      throw Problem.badRequest("body", "The request body must be a JSON object.").toException();
    }
    String customerId = text(root, "customerId", true, 64);
    String currency = text(root, "currency", true, 3);
    if (!NewOrder.isKnownCurrency(currency)) {
      throw Problem.invalid(
              "currency", "currency must be an ISO 4217 code such as EUR, not '" + currency + "'.")
          .toException();
    }
    String channelName = text(root, "channel", false, 16);
    Channel channel =
        channelName == null
            ? Channel.INTERACTIVE
            : Channel.fromWire(channelName)
                .orElseThrow(
                    () ->
                        Problem.invalid(
                                "channel",
                                "channel must be 'interactive' or 'bulk', not '"
                                    + channelName
                                    + "'.")
                            .toException());
    String series = text(root, "invoiceSeries", false, 16);
    if (series != null && !NewOrder.SERIES.matcher(series).matches()) {
      throw Problem.invalid(
              "invoiceSeries",
              "invoiceSeries must be 1 to 16 upper-case letters, digits or '-', starting with a"
                  + " letter or digit.")
          .toException();
    }
    List<OrderLine> lines = lines(root);
    NewOrder order = new NewOrder(customerId, currency, channel, series, lines);
    return new Parsed(order, hash(root));
  }

  private static List<OrderLine> lines(JsonNode root) {
    JsonNode node = root.get("lines");
    if (node == null || node.isNull()) {
      throw Problem.invalid("lines", "lines is required: a list of {sku, quantity, unitPrice}.")
          .toException();
    }
    if (!node.isArray()) {
      throw Problem.invalid("lines", "lines must be a JSON array.").toException();
    }
    if (node.isEmpty() || node.size() > NewOrder.MAX_LINES) {
      throw Problem.invalid(
              "lines",
              "An order has 1 to " + NewOrder.MAX_LINES + " lines, not " + node.size() + ".")
          .toException();
    }
    List<OrderLine> lines = new ArrayList<>(node.size());
    for (int i = 0; i < node.size(); i++) {
      JsonNode line = node.get(i);
      String at = "lines[" + i + "]";
      if (!line.isObject()) {
        throw Problem.invalid(at, at + " must be a JSON object.").toException();
      }
      String sku = text(line, "sku", true, 64, at + ".sku");
      int quantity = quantity(line.get("quantity"), at + ".quantity");
      BigDecimal unitPrice = unitPrice(line.get("unitPrice"), at + ".unitPrice");
      lines.add(new OrderLine(sku, quantity, unitPrice));
    }
    return lines;
  }

  private static int quantity(JsonNode n, String field) {
    if (n == null || n.isNull()) {
      throw Problem.invalid(field, field + " is required.").toException();
    }
    if (!n.isIntegralNumber() || !n.canConvertToInt()) {
      throw Problem.invalid(field, field + " must be a whole number.").toException();
    }
    int q = n.intValue();
    if (q < 1) {
      throw Problem.invalid(field, field + " must be at least 1, not " + q + ".").toException();
    }
    if (q > MAX_QUANTITY) {
      throw Problem.invalid(field, field + " must be at most " + MAX_QUANTITY + ".").toException();
    }
    return q;
  }

  private static BigDecimal unitPrice(JsonNode n, String field) {
    if (n == null || n.isNull()) {
      throw Problem.invalid(field, field + " is required.").toException();
    }
    BigDecimal price;
    try {
      if (!n.isNumber() && !n.isTextual()) {
        throw new NumberFormatException();
      }
      price = n.isNumber() ? n.decimalValue() : new BigDecimal(n.textValue());
    } catch (NumberFormatException e) {
      throw Problem.invalid(field, field + " must be a decimal amount such as \"12.50\".")
          .toException();
    }
    if (price.signum() < 0) {
      throw Problem.invalid(field, field + " must not be negative.").toException();
    }
    if (price.stripTrailingZeros().scale() > 2) {
      throw Problem.invalid(field, field + " has more than two decimals.").toException();
    }
    if (price.compareTo(MAX_UNIT_PRICE) > 0) {
      throw Problem.invalid(field, field + " must be at most " + MAX_UNIT_PRICE + ".")
          .toException();
    }
    return price.setScale(2);
  }

  private static String text(JsonNode root, String name, boolean required, int maxLength) {
    return text(root, name, required, maxLength, name);
  }

  private static String text(
      JsonNode root, String name, boolean required, int maxLength, String field) {
    JsonNode n = root.get(name);
    if (n == null || n.isNull()) {
      if (required) {
        throw Problem.invalid(field, field + " is required.").toException();
      }
      return null;
    }
    if (!n.isTextual()) {
      throw Problem.invalid(field, field + " must be a string.").toException();
    }
    String v = n.textValue();
    if (v.isBlank() || v.length() > maxLength) {
      throw Problem.invalid(field, field + " must have 1 to " + maxLength + " characters.")
          .toException();
    }
    return v;
  }

  /** SHA-256 of the body's canonical JSON (keys sorted): whitespace and key order do not count. */
  static String hash(JsonNode root) {
    try {
      Object tree = JSON.convertValue(root, Object.class);
      byte[] canonical = JSON.writeValueAsString(asSorted(tree)).getBytes(StandardCharsets.UTF_8);
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(canonical));
    } catch (JsonProcessingException | NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  @SuppressWarnings("unchecked")
  private static Object asSorted(Object tree) {
    if (tree instanceof Map<?, ?> map) {
      TreeMap<String, Object> sorted = new TreeMap<>();
      ((Map<String, Object>) map).forEach((k, v) -> sorted.put(k, asSorted(v)));
      return sorted;
    }
    if (tree instanceof List<?> list) {
      return list.stream().map(OrderRequests::asSorted).toList();
    }
    return tree;
  }
}
