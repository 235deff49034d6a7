package dev.ordinal.messaging.inbox;

import dev.ordinal.messaging.ConfigChecks;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.RetentionJobBuilder;
import dev.ordinal.runtime.settings.Check;
import dev.ordinal.runtime.settings.Setting;
import java.time.Duration;

/**
 * Settings of an {@link InboxRetention} job. Checked when built: a wrong value throws {@link
 * ConfigurationException} naming the field. Whether {@code retention} covers the replay window and
 * the topics read is checked when the job starts ({@link InboxRetention#checkCoversReplay}), since
 * the topics' retention lives in Kafka.
 *
 * @param consumer the inbox consumer name ({@link InboxConsumerConfig#consumerName()}) whose rows
 *     are deleted; rows of other consumers are never touched
 * @param retention how long a row is kept after {@code processed_at}; positive
 * @param maxReplayWindow the longest window operators may replay a topic over (seek back by offset
 *     or time); zero or more, zero meaning they never replay
 * @param override start even when {@code retention} does not cover the replay window or the
 *     retention of a topic read, accepting that a message replayed after its row is deleted is
 *     applied twice (logged as a WARN at start)
 * @param batchSize rows deleted per statement and transaction, 1 to {@value #MAX_BATCH_SIZE}
 * @param interval wait between the end of one run and the start of the next; null means {@link
 *     #DEFAULT_INTERVAL}
 */
public record InboxRetentionConfig(
    String consumer,
    Duration retention,
    Duration maxReplayWindow,
    boolean override,
    int batchSize,
    Duration interval) {

  public static final int DEFAULT_BATCH_SIZE = 1000;
  public static final int MAX_BATCH_SIZE = 10_000;
  public static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(1);
  public static final Duration DEFAULT_RETENTION = Duration.ofDays(30);
  public static final Duration DEFAULT_MAX_REPLAY_WINDOW = Duration.ofDays(7);

  /** {@code --inbox-retention}: {@link #retention()}. */
  public static final Setting<Duration> RETENTION =
      Setting.duration(
          "inbox-retention",
          DEFAULT_RETENTION,
          "How long an inbox row is kept after it was applied; must cover the replay window and"
              + " the topics' retention",
          Check.positive());

  /** {@code --replay-window}: {@link #maxReplayWindow()}. */
  public static final Setting<Duration> REPLAY_WINDOW =
      Setting.duration(
          "replay-window",
          DEFAULT_MAX_REPLAY_WINDOW,
          "The longest window operators may replay a topic over; 0s if they never replay",
          Check.notNegative());

  /** {@code --allow-short-retention}: {@link #override()}. */
  public static final Setting<Boolean> OVERRIDE =
      Setting.flag(
          "allow-short-retention",
          false,
          "Start even when --inbox-retention is shorter than the replay window or a topic's"
              + " retention, accepting that a message replayed after its row is gone is applied"
              + " twice (logged as a warning)");

  /** The length of {@code inbox.consumer}. */
  static final int MAX_CONSUMER_LENGTH = 128;

  public InboxRetentionConfig {
    if (consumer == null || consumer.isBlank() || consumer.length() > MAX_CONSUMER_LENGTH) {
      throw new ConfigurationException(
          "consumer must have 1 to "
              + MAX_CONSUMER_LENGTH
              + " characters: the inbox consumer name whose rows are deleted");
    }
    ConfigurationException.check(RETENTION, retention);
    ConfigurationException.check(REPLAY_WINDOW, maxReplayWindow);
    ConfigChecks.oneTo("batchSize", batchSize, MAX_BATCH_SIZE);
    interval = ConfigChecks.positive("interval", interval, DEFAULT_INTERVAL);
  }

  /** No override, the default batch size and interval. */
  public static InboxRetentionConfig of(
      String consumer, Duration retention, Duration maxReplayWindow) {
    return builder(consumer).retention(retention).maxReplayWindow(maxReplayWindow).build();
  }

  /**
   * The rows of {@code consumer}; the retention and replay window take their settings' defaults.
   */
  public static Builder builder(String consumer) {
    return new Builder(consumer);
  }

  /** A copy to change. */
  public Builder toBuilder() {
    return builder(consumer)
        .retention(retention)
        .maxReplayWindow(maxReplayWindow)
        .override(override)
        .batchSize(batchSize)
        .interval(interval);
  }

  public InboxRetentionConfig withOverride(boolean enabled) {
    return toBuilder().override(enabled).build();
  }

  public InboxRetentionConfig withBatchSize(int n) {
    return toBuilder().batchSize(n).build();
  }

  public InboxRetentionConfig withInterval(Duration d) {
    return toBuilder().interval(d).build();
  }

  /** Builds an {@link InboxRetentionConfig}; what is not set takes its default. */
  public static final class Builder extends RetentionJobBuilder<Builder> {
    private final String consumer;
    private Duration maxReplayWindow = REPLAY_WINDOW.defaultValue();
    private boolean override = OVERRIDE.defaultValue();

    private Builder(String consumer) {
      super(RETENTION.defaultValue(), DEFAULT_BATCH_SIZE);
      this.consumer = consumer;
    }

    public Builder maxReplayWindow(Duration d) {
      maxReplayWindow = d;
      return this;
    }

    public Builder override(boolean enabled) {
      override = enabled;
      return this;
    }

    /**
     * @throws ConfigurationException naming the first setting that is wrong
     */
    public InboxRetentionConfig build() {
      return new InboxRetentionConfig(
          consumer, retention, maxReplayWindow, override, batchSize, interval);
    }
  }
}
