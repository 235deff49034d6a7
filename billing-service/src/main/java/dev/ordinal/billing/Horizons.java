package dev.ordinal.billing;

import java.time.Duration;
import java.time.OffsetDateTime;

/**
 * When a number or a payment that the outside world should not hold is asked about again: at {@code
 * base + window}, {@code + 2 x window}, {@code + 4 x window} ... and finally at {@code base + cap},
 * where {@code base} is when the latest request began. A late accept (or a late capture) that lands
 * after the first look-up is seen by the first look-up after it lands, at most as long after
 * landing as it was late; once a look-up began after {@code base + cap}, nothing more is asked (the
 * manual {@code ordinal invoices reconcile} still asks about everything).
 */
final class Horizons {
  /** The longest horizon by default: a day. */
  static final Duration DEFAULT_CAP = Duration.ofDays(1);

  private final Duration window;
  private final Duration cap;

  /**
   * @param window the first horizon (the in-flight window), positive
   * @param cap the last horizon, at least {@code window}
   */
  Horizons(Duration window, Duration cap) {
    if (window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("the first horizon must be positive, not " + window);
    }
    if (cap.compareTo(window) < 0) {
      throw new IllegalArgumentException(
          "the last horizon (" + cap + ") must be at least the first (" + window + ")");
    }
    this.window = window;
    this.cap = cap;
  }

  Duration window() {
    return window;
  }

  Duration cap() {
    return cap;
  }

  /**
   * The first horizon after {@code lookedUpAt} (when a look-up that found nothing began) for a
   * request begun at {@code base}; null when the look-up began at or after {@code base + cap}: the
   * last one.
   */
  OffsetDateTime next(OffsetDateTime base, OffsetDateTime lookedUpAt) {
    Duration h = window;
    while (true) {
      OffsetDateTime at = base.plus(h);
      if (at.isAfter(lookedUpAt)) {
        return at;
      }
      if (h.equals(cap)) {
        return null;
      }
      h = h.multipliedBy(2).compareTo(cap) < 0 ? h.multipliedBy(2) : cap;
    }
  }
}
