package dev.ordinal.console;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the console reads from a service's {@code GET /metrics} (Prometheus text): for a relay, its
 * role on each slot ({@code ordinal_relay_leader}) and the commit-to-acknowledgement p99 from its
 * histogram ({@code ordinal_relay_lag_seconds}); for an inbox consumer, the redeliveries it skipped
 * ({@code ordinal_inbox_messages_total{outcome="duplicate"}}). Each is null when the service does
 * not export it.
 *
 * @param role {@code leader of <slot>} or {@code standby for <slot>}, one per slot, comma-separated
 * @param ackP99Seconds the least bucket bound that holds 99% of the relay's acknowledgements since
 *     it started (an upper bound of the p99), over its slots
 * @param duplicatesSkipped redeliveries the service's inbox consumers skipped since it started
 */
record ServiceMetrics(String role, Double ackP99Seconds, Long duplicatesSkipped) {
  private static final Pattern LEADER =
      Pattern.compile("^ordinal_relay_leader\\{[^}]*slot=\"([^\"]+)\"[^}]*} (\\S+)$");
  private static final Pattern BUCKET =
      Pattern.compile("^ordinal_relay_lag_seconds_bucket\\{[^}]*le=\"([^\"]+)\"[^}]*} (\\S+)$");
  private static final Pattern DUPLICATES =
      Pattern.compile("^ordinal_inbox_messages_total\\{[^}]*outcome=\"duplicate\"[^}]*} (\\S+)$");

  static ServiceMetrics of(String prometheusText) {
    List<String> roles = new ArrayList<>();
    Map<Double, Double> buckets = new TreeMap<>();
    Long duplicates = null;
    for (String line : prometheusText.lines().toList()) {
      Matcher m;
      if ((m = LEADER.matcher(line)).matches()) {
        roles.add(
            (Double.parseDouble(m.group(2)) >= 1 ? "leader of " : "standby for ") + m.group(1));
      } else if ((m = BUCKET.matcher(line)).matches()) {
        double le =
            m.group(1).equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(m.group(1));
        buckets.merge(le, Double.parseDouble(m.group(2)), Double::sum);
      } else if ((m = DUPLICATES.matcher(line)).matches()) {
        duplicates = (duplicates == null ? 0 : duplicates) + (long) Double.parseDouble(m.group(1));
      }
    }
    return new ServiceMetrics(
        roles.isEmpty() ? null : String.join(", ", roles), p99(buckets), duplicates);
  }

  /** The least bound whose cumulative count holds 99% of all; null with no observation. */
  private static Double p99(Map<Double, Double> cumulative) {
    double total = cumulative.getOrDefault(Double.POSITIVE_INFINITY, 0.0);
    if (total <= 0) {
      return null;
    }
    for (Map.Entry<Double, Double> b : cumulative.entrySet()) {
      if (b.getValue() >= 0.99 * total) {
        return b.getKey();
      }
    }
    return null;
  }
}
