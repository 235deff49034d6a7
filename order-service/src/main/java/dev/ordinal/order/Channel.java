package dev.ordinal.order;

import java.util.Locale;
import java.util.Optional;

/** Who is waiting for an order: a person on a screen, or a scheduler or import. */
public enum Channel {
  INTERACTIVE,
  BULK;

  /** The wire and database name: {@code interactive} or {@code bulk}. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<Channel> fromWire(String name) {
    for (Channel c : values()) {
      if (c.wireName().equals(name)) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }
}
