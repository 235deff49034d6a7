package dev.ordinal.order;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Currency;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An order to place. The constructor checks every field; the HTTP layer checks them first to name
 * the offending field in its answer.
 *
 * @param customerId who buys, 1 to 64 characters
 * @param currency ISO 4217 code known to the JVM, e.g. {@code EUR}
 * @param channel who waits for it
 * @param invoiceSeries the invoice series to number it in, or null for billing's default
 * @param lines 1 to {@value #MAX_LINES} lines
 */
public record NewOrder(
    String customerId,
    String currency,
    Channel channel,
    String invoiceSeries,
    List<OrderLine> lines) {
  public static final int MAX_LINES = 100;
  public static final Pattern SERIES = Pattern.compile("[A-Z0-9][A-Z0-9-]{0,15}");
  private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

  public NewOrder {
    Objects.requireNonNull(customerId, "customerId");
    Objects.requireNonNull(currency, "currency");
    Objects.requireNonNull(channel, "channel");
    Objects.requireNonNull(lines, "lines");
    if (customerId.isBlank() || customerId.length() > 64) {
      throw new IllegalArgumentException("customerId must have 1 to 64 characters");
    }
    if (!isKnownCurrency(currency)) {
      throw new IllegalArgumentException("currency is not an ISO 4217 code: " + currency);
    }
    if (invoiceSeries != null && !SERIES.matcher(invoiceSeries).matches()) {
      throw new IllegalArgumentException(
          "invoiceSeries must be 1 to 16 upper-case letters, digits or '-': " + invoiceSeries);
    }
    if (lines.isEmpty() || lines.size() > MAX_LINES) {
      throw new IllegalArgumentException("an order has 1 to " + MAX_LINES + " lines");
    }
    lines = List.copyOf(lines);
  }

  /** An interactive order of one line, for demos and tests. */
  public static NewOrder single(String customerId, String currency, BigDecimal amount) {
    return new NewOrder(
        customerId, currency, Channel.INTERACTIVE, null, List.of(new OrderLine("ITEM", 1, amount)));
  }

  public NewOrder withChannel(Channel c) {
    return new NewOrder(customerId, currency, c, invoiceSeries, lines);
  }

  public BigDecimal total() {
    return lines.stream()
        .map(OrderLine::amount)
        .reduce(BigDecimal.ZERO, BigDecimal::add)
        .setScale(2, RoundingMode.UNNECESSARY);
  }

  public static boolean isKnownCurrency(String code) {
    if (code == null || !CURRENCY.matcher(code).matches()) {
      return false;
    }
    try {
      Currency.getInstance(code);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
