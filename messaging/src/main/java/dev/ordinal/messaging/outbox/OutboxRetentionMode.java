package dev.ordinal.messaging.outbox;

/**
 * How outbox rows are removed once they are no longer needed. Pick the one that matches the relay
 * that publishes the outbox; the wrong one either loses events (a polling relay with a CDC mode) or
 * lets the table grow (a CDC relay with {@link #AFTER_DISPATCH}).
 */
public enum OutboxRetentionMode {
  /**
   * CDC relay only: {@link Outbox#append} deletes the row again in the same transaction, right
   * after inserting it. The relay reads the insert from the WAL and ignores the delete, so the
   * event is still published, and the table stays empty; {@link OutboxRetention} has nothing to do.
   * The relay must be streaming (its replication slot must exist) before the first such write: an
   * event written earlier is in neither the slot nor the table.
   */
  DELETE_ON_WRITE,

  /**
   * CDC relay only: rows are kept for {@code retention} after {@code occurred_at} (to look at or to
   * replay by hand), then deleted by {@link OutboxRetention}. The relay does not need the rows, so
   * any retention is safe for publishing.
   */
  AFTER_AGE,

  /**
   * Polling relay: {@link OutboxRetention} deletes a row only when {@code dispatched_at} is set and
   * older than {@code retention}. A row not yet dispatched is kept whatever its age.
   */
  AFTER_DISPATCH
}
