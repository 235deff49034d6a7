package dev.ordinal.messaging;

import java.time.Duration;

/**
 * What the builders of the two retention jobs' configurations share ({@link
 * dev.ordinal.messaging.inbox.InboxRetentionConfig}, {@link
 * dev.ordinal.messaging.outbox.OutboxRetentionConfig}): how long a row is kept, and the batches and
 * pauses the job deletes in. The configuration checks the values when it is built.
 *
 * @param <B> the builder itself, which every setter returns
 */
public abstract class RetentionJobBuilder<B extends RetentionJobBuilder<B>> {
  /** How long a row is kept. */
  protected Duration retention;

  /** Rows deleted per statement and transaction. */
  protected int batchSize;

  /** Wait between the end of one run and the start of the next; null for the default. */
  protected Duration interval;

  /**
   * Keeps rows for {@code retention}, deleted {@code batchSize} at a time, the default interval.
   */
  protected RetentionJobBuilder(Duration retention, int batchSize) {
    this.retention = retention;
    this.batchSize = batchSize;
  }

  /** How long a row is kept. */
  public B retention(Duration d) {
    retention = d;
    return self();
  }

  /** Rows deleted per statement and transaction. */
  public B batchSize(int n) {
    batchSize = n;
    return self();
  }

  /** Wait between the end of one run and the start of the next; null: the default interval. */
  public B interval(Duration d) {
    interval = d;
    return self();
  }

  @SuppressWarnings("unchecked")
  private B self() {
    return (B) this;
  }
}
