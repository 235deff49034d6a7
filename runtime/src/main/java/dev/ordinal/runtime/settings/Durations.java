package dev.ordinal.runtime.settings;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one duration syntax of every option: ISO-8601 ({@code PT30S}, {@code P7D}) or the short form
 * ({@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}, {@code 7d}).
 */
public final class Durations {
  /** What a value that is not a duration is told to look like. */
  public static final String EXAMPLES = "use e.g. 30s, 2m or PT30S";

  private static final Pattern SHORT = Pattern.compile("([-+]?\\d+)(ms|s|m|h|d)");

  private Durations() {}

  /**
   * {@code text} as a duration.
   *
   * @throws IllegalArgumentException {@code 'soon' is not a duration; use e.g. 30s, 2m or PT30S}
   */
  public static Duration parse(String text) {
    String v = text == null ? "" : text.trim();
    try {
      String upper = v.toUpperCase(Locale.ROOT);
      if (upper.startsWith("P") || upper.startsWith("-P") || upper.startsWith("+P")) {
        return Duration.parse(v);
      }
      Matcher m = SHORT.matcher(v);
      if (m.matches()) {
        long n = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
          case "ms" -> Duration.ofMillis(n);
          case "s" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMinutes(n);
          case "h" -> Duration.ofHours(n);
          default -> Duration.ofDays(n);
        };
      }
    } catch (DateTimeParseException | ArithmeticException | NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException("'" + text + "' is not a duration; " + EXAMPLES);
  }

  /**
   * {@code d} in the short form, in the largest unit that holds it whole ({@code 30s}, {@code 1h},
   * {@code 7d}, {@code 500ms}); ISO-8601 for what has a part below a millisecond. {@link #parse}
   * reads it back.
   */
  public static String format(Duration d) {
    if (d.isZero()) {
      return "0s";
    }
    if (d.getNano() % 1_000_000 != 0) {
      return d.toString();
    }
    long ms = d.toMillis();
    long[] sizes = {86_400_000L, 3_600_000L, 60_000L, 1000L};
    String[] units = {"d", "h", "m", "s"};
    for (int i = 0; i < sizes.length; i++) {
      if (ms % sizes[i] == 0) {
        return ms / sizes[i] + units[i];
      }
    }
    return ms + "ms";
  }
}
