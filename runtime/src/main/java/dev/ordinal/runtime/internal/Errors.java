package dev.ordinal.runtime.internal;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/** How an exception is shown in one line of a log or a health body. */
public final class Errors {
  private static final Pattern SECRET =
      Pattern.compile("(?i)(password\\S*?\\s*[=:]\\s*)[^\\s&;,]+");
  private static final int MAX_LENGTH = 500;

  private Errors() {}

  /**
   * "Type: message; caused by Type: message ..." for the exception and its causes (repeated
   * messages once), with anything that looks like a password masked, at most 500 characters.
   */
  public static String describe(Throwable e) {
    StringBuilder b = new StringBuilder();
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    String previous = null;
    for (Throwable t = e; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
      String m = t.getMessage() == null ? "" : firstLine(t.getMessage());
      if (previous != null && (m.isEmpty() || previous.contains(m))) {
        continue;
      }
      if (b.length() > 0) {
        b.append("; caused by ");
      }
      b.append(t.getClass().getSimpleName());
      if (!m.isEmpty()) {
        b.append(": ").append(m);
      }
      previous = m;
    }
    String s = redact(b.toString());
    return s.length() > MAX_LENGTH ? s.substring(0, MAX_LENGTH) + " ..." : s;
  }

  /** {@code s} with anything that looks like a password masked. */
  public static String redact(String s) {
    return SECRET.matcher(s).replaceAll("$1***");
  }

  private static String firstLine(String m) {
    int nl = m.indexOf('\n');
    return (nl < 0 ? m : m.substring(0, nl)).trim();
  }
}
