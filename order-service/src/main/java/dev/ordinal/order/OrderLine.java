package dev.ordinal.order;

import java.math.BigDecimal;
import java.util.Objects;

/**
 * One line of an order.
 *
 * @param quantity at least 1
 * @param unitPrice zero or more, at most two decimals
 */
public record OrderLine(String sku, int quantity, BigDecimal unitPrice) {
  public OrderLine {
    Objects.requireNonNull(sku, "sku");
    Objects.requireNonNull(unitPrice, "unitPrice");
    if (sku.isBlank() || sku.length() > 64) {
      throw new IllegalArgumentException("sku must have 1 to 64 characters");
    }
    if (quantity < 1) {
      throw new IllegalArgumentException("quantity must be at least 1: " + quantity);
    }
    if (unitPrice.signum() < 0 || unitPrice.stripTrailingZeros().scale() > 2) {
      throw new IllegalArgumentException(
          "unitPrice must be zero or more with at most two decimals: " + unitPrice);
    }
  }

  public BigDecimal amount() {
    return unitPrice.multiply(BigDecimal.valueOf(quantity));
  }
}
