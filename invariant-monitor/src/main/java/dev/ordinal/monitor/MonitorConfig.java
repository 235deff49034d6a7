package dev.ordinal.monitor;

import static dev.ordinal.messaging.ConfigurationException.check;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.runtime.settings.Check;
import dev.ordinal.runtime.settings.Setting;
import java.time.Duration;

/**
 * Settings of the invariant monitor, checked on construction: each problem is one {@link
 * ConfigurationException} sentence. Build with {@link #builder()}.
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

  /** {@code --prefix}: {@link #topicPrefix()}. */
  public static final Setting<String> PREFIX =
      Setting.string("prefix", Topics.DEFAULT_PREFIX, "Topic prefix", Topics.PREFIX);

  /** {@code --deadline}: {@link #invoiceDeadline()}. */
  public static final Setting<Duration> DEADLINE =
      Setting.duration(
          "deadline",
          DEFAULT_INVOICE_DEADLINE,
          "Time an order may wait for its invoice",
          Check.positive());

  /** {@code --grace}: {@link #gapGrace()}. */
  public static final Setting<Duration> GRACE =
      Setting.duration(
          "grace", DEFAULT_GAP_GRACE, "Time a gap in a series may stay open", Check.positive());

  public MonitorConfig {
    check(PREFIX, topicPrefix);
    check(DEADLINE, invoiceDeadline);
    check(GRACE, gapGrace);
    if (applicationId == null || applicationId.isBlank()) {
      throw new ConfigurationException("applicationId must not be blank");
    }
    if (punctuationInterval == null
        || punctuationInterval.isZero()
        || punctuationInterval.isNegative()) {
      throw new ConfigurationException(
          "punctuationInterval must be positive, not " + punctuationInterval);
    }
    if (punctuationInterval.compareTo(invoiceDeadline) > 0
        || punctuationInterval.compareTo(gapGrace) > 0) {
      throw new ConfigurationException(
          "punctuationInterval "
              + punctuationInterval
              + " is longer than "
              + DEADLINE.option()
              + " "
              + invoiceDeadline
              + " or "
              + GRACE.option()
              + " "
              + gapGrace
              + ": alerts would come up to one interval late; lower the interval");
    }
  }

  /** The defaults for {@code topicPrefix}, with {@link #DEFAULT_APPLICATION_ID}. */
  public static MonitorConfig defaults(String topicPrefix) {
    return builder().topicPrefix(topicPrefix).build();
  }

  /** Every value its default until set. */
  public static Builder builder() {
    return new Builder();
  }

  /** A copy to change. */
  public Builder toBuilder() {
    return builder()
        .topicPrefix(topicPrefix)
        .invoiceDeadline(invoiceDeadline)
        .gapGrace(gapGrace)
        .punctuationInterval(punctuationInterval)
        .applicationId(applicationId);
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

  /** Builds a {@link MonitorConfig}; what is not set takes its default. */
  public static final class Builder {
    private String topicPrefix = PREFIX.defaultValue();
    private Duration invoiceDeadline = DEADLINE.defaultValue();
    private Duration gapGrace = GRACE.defaultValue();
    private Duration punctuationInterval = DEFAULT_PUNCTUATION_INTERVAL;
    private String applicationId = DEFAULT_APPLICATION_ID;

    private Builder() {}

    public Builder topicPrefix(String p) {
      topicPrefix = p;
      return this;
    }

    public Builder invoiceDeadline(Duration d) {
      invoiceDeadline = d;
      return this;
    }

    public Builder gapGrace(Duration d) {
      gapGrace = d;
      return this;
    }

    public Builder punctuationInterval(Duration d) {
      punctuationInterval = d;
      return this;
    }

    public Builder applicationId(String id) {
      applicationId = id;
      return this;
    }

    /**
     * @throws ConfigurationException naming the first setting that is wrong
     */
    public MonitorConfig build() {
      return new MonitorConfig(
          topicPrefix, invoiceDeadline, gapGrace, punctuationInterval, applicationId);
    }
  }
}
