package dev.ordinal.order;

/** JSON bodies written by hand, exactly as given: nothing is escaped, nothing is checked. */
final class JsonText {
  private JsonText() {}

  /**
   * {@code {"name":value,...}} from alternating names and raw values (a value is written as it is:
   * quote strings with {@link #quoted(String)}).
   */
  static String object(String... namesAndValues) {
    StringBuilder json = new StringBuilder("{");
    for (int i = 0; i < namesAndValues.length; i += 2) {
      if (i > 0) {
        json.append(',');
      }
      json.append('"').append(namesAndValues[i]).append("\":").append(namesAndValues[i + 1]);
    }
    return json.append('}').toString();
  }

  /** {@code value} in double quotes, unescaped. */
  static String quoted(String value) {
    return "\"" + value + "\"";
  }
}
