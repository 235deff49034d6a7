package dev.ordinal.messaging.inbox;

import org.jooq.DSLContext;

/**
 * A consumer's business write for one message. It runs inside the transaction of the message's
 * inbox row, so it runs at most once per (message id, consumer) to a commit.
 */
@FunctionalInterface
public interface MessageHandler {
  /**
   * Applies {@code message} using {@code tx} only, in a transaction that has already inserted the
   * inbox row (or, in a bench or a lab, has none).
   *
   * @throws PoisonMessageException when the message can never be applied (the consumer skips it)
   * @throws RuntimeException anything else rolls the transaction back and is retried with backoff
   */
  void handle(DSLContext tx, Envelope message);

  /**
   * Applies {@code message} and inserts its inbox row, in the transaction {@link InboxConsumer}
   * opened for it. The inbox row must be inserted before anything else is written; a handler whose
   * first step is a statement of its own (a lock, a read) folds it into the inbox row's statement
   * with {@link InboxRow#insert(DSLContext, org.jooq.Field[])}, saving a round trip per message. By
   * default the row is inserted alone, then {@link #handle(DSLContext, Envelope)} runs.
   *
   * @throws PoisonMessageException when the message can never be applied (the consumer skips it)
   * @throws RuntimeException anything else rolls the transaction back and is retried with backoff
   */
  default void handle(DSLContext tx, Envelope message, InboxRow inboxRow) {
    inboxRow.insert(tx);
    handle(tx, message);
  }
}
