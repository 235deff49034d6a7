package dev.ordinal.order.internal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
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
 * Reads a {@code POST /orders} body into a {@link NewOrder}, and a {@code POST /orders/{id}/cancel}
 * body into its reason, checking each field and naming the first one that is wrong: 400 for a body
 * that is not a JSON object, 422 for a field that is missing, out of range, given twice, or holds a
 * character PostgreSQL cannot store (NUL).
 */
public final class OrderRequests {
  public static final int MAX_QUANTITY = 1_000_000;
  public static final BigDecimal MAX_UNIT_PRICE = new BigDecimal("1000000000");

  private static final int MAX_REASON_LENGTH = 500;

  /**
   * The one mapper that reads request bodies (and writes their canonical form for the idempotency
   * hash). A key given twice in one object is an error rather than "the last one wins", so {@code
   * {"customerId":"c1","customerId":"c2"}} is refused instead of placed for c2.
   */
  private static final ObjectMapper JSON =
      JsonMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  private OrderRequests() {}

  /** A parsed request and the hash of its canonical form, for idempotency checks. */
  public record Parsed(NewOrder order, String hash) {}

  public static Parsed parse(byte[] body) {
    if (body == null || body.length == 0) {
      throw Problem.badRequest("body", "The request body is empty; send a JSON object.")
          .toException();
    }
    JsonNode root = readTree(body);
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

  /**
   * The {@code reason} of a {@code POST /orders/{id}/cancel} body, or null when the body, or its
   * reason, is absent.
   */
  public static String cancelReason(byte[] body) {
    if (body == null || body.length == 0) {
      return null;
    }
    JsonNode reason = readTree(body).get("reason");
    if (reason == null || reason.isNull()) {
      return null;
    }
    if (!reason.isTextual() || reason.textValue().length() > MAX_REASON_LENGTH) {
      throw Problem.invalid(
              "reason", "reason must be a string of at most " + MAX_REASON_LENGTH + " characters.")
          .toException();
    }
    return storable("reason", reason.textValue());
  }

  /**
   * Parses {@code body} with the one configured mapper: 400 when it is not JSON, 422 naming the key
   * when an object has the same key twice.
   */
  private static JsonNode readTree(byte[] body) {
    try {
      JsonNode root = JSON.readTree(body);
      return root == null ? MissingNode.getInstance() : root;
    } catch (JsonProcessingException e) {
      String duplicate = duplicateKey(e);
      if (duplicate != null) {
        throw Problem.invalid(
                duplicate, duplicate + " appears more than once in the body; send each field once.")
            .toException();
      }
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
  }

  /**
   * The path of the key ({@code customerId}, {@code lines[0].sku}) that {@link
   * StreamReadFeature#STRICT_DUPLICATE_DETECTION} refused, or null when {@code e} is another parse
   * error. Jackson 2 has no exception type of its own for it: the parser stops with its context on
   * the repeated key, and the message is the one its duplicate check builds for that key.
   */
  static String duplicateKey(JsonProcessingException e) {
    if (!(e.getProcessor() instanceof JsonParser parser)) {
      return null;
    }
    JsonStreamContext at = parser.getParsingContext();
    if (at == null || !at.inObject() || at.getCurrentName() == null) {
      return null;
    }
    if (!("Duplicate field '" + at.getCurrentName() + "'").equals(e.getOriginalMessage())) {
      return null;
    }
    return path(at);
  }

  /** The request-field path of a parser position: {@code lines[0].sku}. */
  private static String path(JsonStreamContext at) {
    if (at == null || at.inRoot()) {
      return "";
    }
    String parent = path(at.getParent());
    if (at.inArray()) {
      return parent + "[" + at.getCurrentIndex() + "]";
    }
    return parent.isEmpty() ? at.getCurrentName() : parent + "." + at.getCurrentName();
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
    String v = storable(field, n.textValue());
    if (v.isBlank() || v.length() > maxLength) {
      throw Problem.invalid(field, field + " must have 1 to " + maxLength + " characters.")
          .toException();
    }
    return v;
  }

  /**
   * {@code value} when PostgreSQL can store it: a text column, and the jsonb outbox payload, refuse
   * the NUL character (a 500 after the transaction began), so it is refused here, naming the field.
   */
  private static String storable(String field, String value) {
    if (value.indexOf('\0') >= 0) {
      throw Problem.invalid(field, field + " must not contain the NUL character (\\u0000).")
          .toException();
    }
    return value;
  }

  /**
   * SHA-256 of the body's canonical JSON (keys sorted): whitespace and key order do not count. It
   * is made from the tree {@link #parse} accepted, read by the same mapper, so a body that parse
   * refuses (a key given twice, say) never gets a hash to match an earlier request with.
   */
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
