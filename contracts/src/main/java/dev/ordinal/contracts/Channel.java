package dev.ordinal.contracts;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;
import java.util.Optional;

/**
 * Who waits for an order: a person on a screen, or a scheduler or import. {@code OrderPlaced}
 * carries it as {@code "channel"} ({@code interactive} or {@code bulk}), and it chooses the order's
 * topic ({@link AggregateType#of}).
 */
public enum Channel {
  INTERACTIVE,
  BULK;

  /** The wire name: {@code interactive} or {@code bulk}. */
  @JsonValue
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The channel named {@code wireName}, or empty for another name. */
  public static Optional<Channel> fromWire(String wireName) {
    for (Channel c : values()) {
      if (c.wireName().equals(wireName)) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }

  /**
   * Reading: a name this contract does not know (a channel a newer producer added) is served as
   * interactive, as billing always did.
   */
  @JsonCreator
  static Channel read(String wireName) {
    return fromWire(wireName).orElse(INTERACTIVE);
  }
}
