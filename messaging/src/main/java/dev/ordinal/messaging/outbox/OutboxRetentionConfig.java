package dev.ordinal.messaging.outbox;

import dev.ordinal.messaging.ConfigChecks;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.RetentionJobBuilder;
import dev.ordinal.runtime.settings.Check;
import dev.ordinal.runtime.settings.Setting;
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
  public static final Duration DEFAULT_RETENTION = Duration.ofHours(1);

  /** {@code --outbox-retention}: {@link #mode()}. */
  public static final Setting<OutboxRetentionMode> MODE =
      Setting.choice(
          "outbox-retention",
          OutboxRetentionMode.class,
          OutboxRetentionMode.AFTER_AGE,
          "What happens to published outbox rows: delete-on-write deletes each in the transaction"
              + " that wrote it (CDC relay only: it reads the insert from the WAL; start the relay"
              + " first), after-age once older than --outbox-retention-age (CDC relay),"
              + " after-dispatch once dispatched longer ago than that (relay --mode polling only: the CDC"
              + " relay marks nothing dispatched)");

  /** {@code --outbox-retention-age}: {@link #retention()}. */
  public static final Setting<Duration> RETENTION =
      Setting.duration(
          "outbox-retention-age",
          DEFAULT_RETENTION,
          "How long an outbox row is kept after it was written (after-age) or dispatched"
              + " (after-dispatch)",
          Check.notNegative());

  public OutboxRetentionConfig {
    ConfigurationException.check(MODE, mode);
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
    ConfigurationException.check(RETENTION, retention);
    if (mode == OutboxRetentionMode.DELETE_ON_WRITE && !retention.isZero()) {
      throw new ConfigurationException(
          "retention has no effect in mode DELETE_ON_WRITE (rows are deleted as they are"
              + " written): set it to zero, or use mode AFTER_AGE to keep rows for "
              + retention);
    }
    ConfigChecks.oneTo("batchSize", batchSize, MAX_BATCH_SIZE);
    interval = ConfigChecks.positive("interval", interval, DEFAULT_INTERVAL);
  }

  /** {@code mode} and {@code retention} with the default batch size and interval. */
  public static OutboxRetentionConfig of(OutboxRetentionMode mode, Duration retention) {
    return builder(mode).retention(retention).build();
  }

  /**
   * Rows removed as {@code mode} says; {@code retention} must be set unless it deletes on write.
   */
  public static Builder builder(OutboxRetentionMode mode) {
    return new Builder(mode);
  }

  /** A copy to change. */
  public Builder toBuilder() {
    return builder(mode).retention(retention).batchSize(batchSize).interval(interval);
  }

  /** Builds an {@link OutboxRetentionConfig}; the batch size and interval have defaults. */
  public static final class Builder extends RetentionJobBuilder<Builder> {
    private final OutboxRetentionMode mode;

    private Builder(OutboxRetentionMode mode) {
      super(null, DEFAULT_BATCH_SIZE);
      this.mode = mode;
    }

    /**
     * @throws ConfigurationException naming the first setting that is wrong
     */
    public OutboxRetentionConfig build() {
      return new OutboxRetentionConfig(mode, retention, batchSize, interval);
    }
  }

  /** Rows are deleted by {@link Outbox#append} as they are written (CDC relay only). */
  public static OutboxRetentionConfig deleteOnWrite() {
    return of(OutboxRetentionMode.DELETE_ON_WRITE, Duration.ZERO);
  }
}
