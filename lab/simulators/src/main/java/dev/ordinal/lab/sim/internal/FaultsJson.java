package dev.ordinal.lab.sim.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.Iterator;
import java.util.Set;

/**
 * Reads the admin endpoints' partial fault settings: durations in milliseconds ({@code
 * latencyMinMs}), rates as numbers from 0 to 1; a field left out keeps its current value, an
 * unknown field is refused so a typo does not pass silently.
 */
public final class FaultsJson {
  private FaultsJson() {}

  public static void onlyFields(JsonNode body, Set<String> known) {
    for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
      String f = it.next();
      if (!known.contains(f)) {
        throw SimRequestException.invalid(
            "Unknown fault setting '" + f + "'; the settings are " + known + ".");
      }
    }
  }

  public static Duration millis(JsonNode body, String field, Duration current) {
    JsonNode v = body.get(field);
    if (v == null) {
      return current;
    }
    if (!v.canConvertToLong() || !v.isIntegralNumber()) {
      throw SimRequestException.invalid(field + " must be a whole number of milliseconds: " + v);
    }
    return Duration.ofMillis(v.longValue());
  }

  public static double rate(JsonNode body, String field, double current) {
    JsonNode v = body.get(field);
    if (v == null) {
      return current;
    }
    if (!v.isNumber()) {
      throw SimRequestException.invalid(field + " must be a number from 0 to 1: " + v);
    }
    return v.doubleValue();
  }

  public static ObjectNode object() {
    return SimHttp.JSON.createObjectNode();
  }
}
