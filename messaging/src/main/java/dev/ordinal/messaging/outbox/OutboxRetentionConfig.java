package dev.ordinal.messaging.outbox;

import dev.ordinal.messaging.ConfigurationException;
import java.time.Duration;

/**
 * Settings of an {@link OutboxRetention} job (and, for {@link OutboxRetentionMode#DELETE_ON_WRITE},
 * of the {@link Outbox} that writes the rows). Checked when built: a wrong value throws {@link
 * ConfigurationException} naming the field.
 *
 * @param mode how rows are removed; see {@link OutboxRetentionMode}
 * @param retention how long a row is kept after {@code occurred_at} ({@link
 *     OutboxRetentionMode#AFTER_AGE}) or after {@code dispatched_at} ({@link
 *     OutboxRetentionMode#AFTER_DISPATCH}); zero or more, required in those modes. Unused by {@link
 *     OutboxRetentionMode#DELETE_ON_WRITE}: leave it null or zero
 * @param batchSize rows deleted per statement and transaction, 1 to {@value #MAX_BATCH_SIZE}
 * @param interval wait between the end of one run and the start of the next; null means {@link
 *     #DEFAULT_INTERVAL}
 */
public record OutboxRetentionConfig(
    OutboxRetentionMode mode, Duration retention, int batchSize, Duration interval) {

  public static final int DEFAULT_BATCH_SIZE = 500;
  public static final int MAX_BATCH_SIZE = 10_000;
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(10);

  public OutboxRetentionConfig {
    if (mode == null) {
      throw new ConfigurationException(
          "mode must be set: DELETE_ON_WRITE, AFTER_AGE or AFTER_DISPATCH");
    }
    if (retention == null) {
      if (mode != OutboxRetentionMode.DELETE_ON_WRITE) {
        throw new ConfigurationException(
            "retention must be set for mode "
                + mode
                + ": how long a row is kept after "
                + (mode == OutboxRetentionMode.AFTER_AGE ? "occurred_at" : "dispatched_at"));
      }
      retention = Duration.ZERO;
    }
    if (retention.isNegative()) {
      throw new ConfigurationException("retention must not be negative: " + retention);
    }
    if (mode == OutboxRetentionMode.DELETE_ON_WRITE && !retention.isZero()) {
      throw new ConfigurationException(
          "retention has no effect in mode DELETE_ON_WRITE (rows are deleted as they are"
              + " written): set it to zero, or use mode AFTER_AGE to keep rows for "
              + retention);
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

  /** {@code mode} and {@code retention} with the default batch size and interval. */
  public static OutboxRetentionConfig of(OutboxRetentionMode mode, Duration retention) {
    return new OutboxRetentionConfig(mode, retention, DEFAULT_BATCH_SIZE, DEFAULT_INTERVAL);
  }

  /** Rows are deleted by {@link Outbox#append} as they are written (CDC relay only). */
  public static OutboxRetentionConfig deleteOnWrite() {
    return of(OutboxRetentionMode.DELETE_ON_WRITE, Duration.ZERO);
  }
}
