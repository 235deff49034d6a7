package dev.ordinal.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The plots' figures over the last {@link #KEEP}, kept by the console's server: each consumer
 * group's lag in records and each slot's WAL held back from {@code restart_lsn}, one sample per
 * {@link #STEP} at most, taken from the snapshots ({@link PipeReader}), which the console's history
 * loop reads every {@link #STEP} whether or not a page is open. A page loads it ({@code GET
 * /api/history}) and goes on with its own snapshots. Thread-safe.
 */
final class History {
  static final Duration KEEP = Duration.ofHours(1);
  static final Duration STEP = Duration.ofSeconds(10);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One sample: when, and each plot's figures by series name. */
  private record Sample(Instant at, Map<String, Long> lag, Map<String, Long> slot) {}

  private final Deque<Sample> samples = new ArrayDeque<>();

  /** Keeps {@code snapshot}'s figures, unless the last sample is younger than {@link #STEP}. */
  synchronized void record(ObjectNode snapshot) {
    Instant at = Instant.parse(snapshot.get("takenAt").asText());
    if (!samples.isEmpty() && Duration.between(samples.peekLast().at(), at).compareTo(STEP) < 0) {
      return;
    }
    samples.addLast(
        new Sample(
            at,
            figures(snapshot.path("groups"), "group", "lag"),
            figures(snapshot.path("slots"), "slot", "restartLagBytes")));
    while (Duration.between(samples.peekFirst().at(), at).compareTo(KEEP) > 0) {
      samples.removeFirst();
    }
  }

  /** How many samples it holds. */
  synchronized int size() {
    return samples.size();
  }

  /**
   * The samples as the page plots them: {@code {"lag": {"t": [epoch seconds], "series": {name:
   * [value or null]}}, "slot": ...}}.
   */
  synchronized ObjectNode toJson() {
    ObjectNode o = JSON.createObjectNode();
    o.put("stepSeconds", STEP.toSeconds());
    o.put("keepSeconds", KEEP.toSeconds());
    plot(o.putObject("lag"), true);
    plot(o.putObject("slot"), false);
    return o;
  }

  private void plot(ObjectNode into, boolean lag) {
    List<Map<String, Long>> each = samples.stream().map(s -> lag ? s.lag() : s.slot()).toList();
    ArrayNode t = into.putArray("t");
    samples.forEach(s -> t.add(s.at().getEpochSecond()));
    TreeSet<String> names = new TreeSet<>();
    each.forEach(m -> names.addAll(m.keySet()));
    ObjectNode series = into.putObject("series");
    for (String name : names) {
      ArrayNode values = series.putArray(name);
      for (Map<String, Long> m : each) {
        if (m.containsKey(name)) {
          values.add(m.get(name));
        } else {
          values.addNull();
        }
      }
    }
  }

  private static Map<String, Long> figures(JsonNode items, String name, String figure) {
    Map<String, Long> m = new LinkedHashMap<>();
    for (JsonNode i : items) {
      if (i.hasNonNull(figure)) {
        m.put(i.get(name).asText(), i.get(figure).asLong());
      }
    }
    return m;
  }
}
