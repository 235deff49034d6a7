package dev.ordinal.monitor;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the invariant monitor, validated on construction.
 *
 * @param topicPrefix topics are {@code <prefix>.order}, {@code <prefix>.order-bulk}, {@code
 *     <prefix>.invoice} (read) and {@code <prefix>.alerts} (written)
 * @param invoiceDeadline how long after the monitor first sees an {@code OrderPlaced} the order may
 *     stay without an invoice before {@link AlertKind#MISSING_INVOICE}
 * @param gapGrace how long a number below the highest issued one may stay missing before {@link
 *     AlertKind#GAP}
 * @param punctuationInterval how often (wall-clock) deadlines and gaps are checked; at most the
 *     smaller of the two, so an alert is never later than one interval past its deadline
 * @param applicationId the Kafka Streams application id (consumer group, state directory, internal
 *     topic names)
 * @throws IllegalArgumentException on a blank name, a non-positive duration, or an interval longer
 *     than the deadline or the grace
 */
public record MonitorConfig(
    String topicPrefix,
    Duration invoiceDeadline,
    Duration gapGrace,
    Duration punctuationInterval,
    String applicationId) {

  public static final Duration DEFAULT_INVOICE_DEADLINE = Duration.ofMinutes(5);
  public static final Duration DEFAULT_GAP_GRACE = Duration.ofMinutes(2);
  public static final Duration DEFAULT_PUNCTUATION_INTERVAL = Duration.ofSeconds(10);
  public static final String DEFAULT_APPLICATION_ID = "ordinal-invariant-monitor";

  public MonitorConfig {
    requireName(topicPrefix, "topicPrefix");
    requireName(applicationId, "applicationId");
    requirePositive(invoiceDeadline, "invoiceDeadline");
    requirePositive(gapGrace, "gapGrace");
    requirePositive(punctuationInterval, "punctuationInterval");
    if (punctuationInterval.compareTo(invoiceDeadline) > 0
        || punctuationInterval.compareTo(gapGrace) > 0) {
      throw new IllegalArgumentException(
          "punctuationInterval "
              + punctuationInterval
              + " is longer than invoiceDeadline "
              + invoiceDeadline
              + " or gapGrace "
              + gapGrace
              + ": alerts would come up to one interval late; lower the interval");
    }
  }

  /** The defaults for {@code topicPrefix}, with {@link #DEFAULT_APPLICATION_ID}. */
  public static MonitorConfig defaults(String topicPrefix) {
    return new MonitorConfig(
        topicPrefix,
        DEFAULT_INVOICE_DEADLINE,
        DEFAULT_GAP_GRACE,
        DEFAULT_PUNCTUATION_INTERVAL,
        DEFAULT_APPLICATION_ID);
  }

  public String orderTopic() {
    return topicPrefix + ".order";
  }

  public String orderBulkTopic() {
    return topicPrefix + ".order-bulk";
  }

  public String invoiceTopic() {
    return topicPrefix + ".invoice";
  }

  public String alertsTopic() {
    return topicPrefix + ".alerts";
  }

  private static void requireName(String value, String name) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
  }

  private static void requirePositive(Duration value, String name) {
    Objects.requireNonNull(value, name);
    if (value.isZero() || value.isNegative()) {
      throw new IllegalArgumentException(name + " must be positive, was " + value);
    }
  }
}
