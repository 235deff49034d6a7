package dev.ordinal.lab.sim;

import java.util.Comparator;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A legal invoice number: a series and a positive number within it, ordered by series then number.
 * The integrator keys everything by it and never stores one number for two invoices.
 *
 * @param series 1 to 32 letters, digits, {@code -} or {@code _} (it appears in URLs as is)
 * @param number at least 1
 */
public record InvoiceNumber(String series, long number) implements Comparable<InvoiceNumber> {
  private static final Pattern SERIES = Pattern.compile("[A-Za-z0-9_-]{1,32}");
  private static final Comparator<InvoiceNumber> ORDER =
      Comparator.comparing(InvoiceNumber::series).thenComparingLong(InvoiceNumber::number);

  public InvoiceNumber {
    Objects.requireNonNull(series, "series");
    if (!SERIES.matcher(series).matches()) {
      throw new IllegalArgumentException(
          "series must be 1 to 32 letters, digits, '-' or '_': " + series);
    }
    if (number < 1) {
      throw new IllegalArgumentException("number must be at least 1: " + number);
    }
  }

  @Override
  public int compareTo(InvoiceNumber other) {
    return ORDER.compare(this, other);
  }

  /** {@code series/number}, as in the lookup URL. */
  @Override
  public String toString() {
    return series + "/" + number;
  }
}
