package dev.ordinal.messaging;

import org.jooq.DSLContext;

/**
 * A consumer's business write for one message. It runs inside the transaction that has already
 * inserted the inbox row, so it runs at most once per (message id, consumer) to a commit.
 */
@FunctionalInterface
public interface MessageHandler {
  /**
   * Applies {@code message} using {@code tx} only.
   *
   * @throws PoisonMessageException when the message can never be applied (the consumer skips it)
   * @throws RuntimeException anything else rolls the transaction back and is retried with backoff
   */
  void handle(DSLContext tx, Envelope message);
}
