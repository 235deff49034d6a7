package dev.ordinal.order;

import java.math.BigDecimal;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An order to place.
 *
 * @param customerId who buys
 * @param currency ISO 4217 code, three upper-case letters
 * @param total amount, not negative, at most two decimals
 */
public record NewOrder(String customerId, String currency, BigDecimal total) {
  private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

  public NewOrder {
    Objects.requireNonNull(customerId, "customerId");
    Objects.requireNonNull(currency, "currency");
    Objects.requireNonNull(total, "total");
    if (customerId.isBlank() || customerId.length() > 64) {
      throw new IllegalArgumentException("customerId must have 1 to 64 characters");
    }
    if (!CURRENCY.matcher(currency).matches()) {
      throw new IllegalArgumentException("currency must be three upper-case letters: " + currency);
    }
    if (total.signum() < 0 || total.scale() > 2) {
      throw new IllegalArgumentException(
          "total must be zero or more with at most two decimals: " + total);
    }
  }
}
