package dev.ordinal.messaging.inbox;

import dev.ordinal.messaging.ConfigurationException;
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

  /** The length of {@code inbox.consumer}. */
  static final int MAX_CONSUMER_LENGTH = 128;

  public InboxRetentionConfig {
    if (consumer == null || consumer.isBlank() || consumer.length() > MAX_CONSUMER_LENGTH) {
      throw new ConfigurationException(
          "consumer must have 1 to "
              + MAX_CONSUMER_LENGTH
              + " characters: the inbox consumer name whose rows are deleted");
    }
    if (retention == null) {
      throw new ConfigurationException(
          "retention must be set: how long an inbox row is kept after processed_at");
    }
    if (retention.isNegative() || retention.isZero()) {
      throw new ConfigurationException("retention must be positive: " + retention);
    }
    if (maxReplayWindow == null) {
      throw new ConfigurationException(
          "maxReplayWindow must be set: the longest window operators may replay a topic over"
              + " (PT0S if they never replay)");
    }
    if (maxReplayWindow.isNegative()) {
      throw new ConfigurationException("maxReplayWindow must not be negative: " + maxReplayWindow);
    }
    if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
      throw new ConfigurationException(
          "batchSize must be between 1 and " + MAX_BATCH_SIZE + ": " + batchSize);
    }
    interval = interval == null ? DEFAULT_INTERVAL : interval;
    if (interval.isNegative() || interval.isZero()) {
      throw new ConfigurationException("interval must be positive: " + interval);
    }
  }

  /** No override, the default batch size and interval. */
  public static InboxRetentionConfig of(
      String consumer, Duration retention, Duration maxReplayWindow) {
    return new InboxRetentionConfig(
        consumer, retention, maxReplayWindow, false, DEFAULT_BATCH_SIZE, DEFAULT_INTERVAL);
  }

  public InboxRetentionConfig withOverride(boolean enabled) {
    return new InboxRetentionConfig(
        consumer, retention, maxReplayWindow, enabled, batchSize, interval);
  }

  public InboxRetentionConfig withBatchSize(int n) {
    return new InboxRetentionConfig(consumer, retention, maxReplayWindow, override, n, interval);
  }

  public InboxRetentionConfig withInterval(Duration d) {
    return new InboxRetentionConfig(consumer, retention, maxReplayWindow, override, batchSize, d);
  }
}
