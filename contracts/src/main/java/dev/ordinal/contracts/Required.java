package dev.ordinal.contracts;

import java.util.UUID;

/** The records' checks of their required fields. */
final class Required {
  private Required() {}

  static <T> T present(EventType type, String field, T value) {
    if (value == null) {
      throw MalformedEventException.missing(type, field);
    }
    return value;
  }

  /** Present and not blank, as billing has always required of its text fields. */
  static String text(EventType type, String field, String value) {
    if (value == null || value.isBlank()) {
      throw MalformedEventException.missing(type, field);
    }
    return value;
  }

  /** At least 1; 0 is also what a missing number reads as. */
  static long positive(EventType type, String field, long value) {
    if (value < 1) {
      throw value == 0
          ? MalformedEventException.missing(type, field)
          : MalformedEventException.malformed(type, field, value + " is less than 1", null);
    }
    return value;
  }

  /**
   * The fields every invoice event starts with, checked in this order: which invoice, of which
   * order, and its number ({@code number} at least 1) in {@code series}.
   */
  static void invoiceNumber(
      EventType type, UUID invoiceId, UUID orderId, String series, long number) {
    present(type, "invoiceId", invoiceId);
    present(type, "orderId", orderId);
    present(type, "series", series);
    positive(type, "number", number);
  }
}
