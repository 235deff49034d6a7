package dev.ordinal.messaging.inbox;

import org.jooq.DSLContext;
import org.jooq.Field;

/**
 * A consumer's business write for one message.
 *
 * <p>What an implementation can rely on: {@link InboxConsumer} applies each message in one
 * transaction that first inserts the message's inbox row (message id, consumer name), always, and
 * only then calls {@link #handle}. So {@code handle} commits at most once per (message id,
 * consumer): a message applied before fails the inbox row's insert (a unique violation on {@code
 * inbox_pkey}) and {@code handle} is not called for it. The handler never sees or writes the inbox
 * row itself.
 */
@FunctionalInterface
public interface MessageHandler {
  /**
   * Applies {@code message} using {@code tx} only, in the transaction that has just inserted the
   * message's inbox row (and taken {@link #lockFor} of it, if any).
   *
   * @throws PoisonMessageException when the message can never be applied (the consumer skips it)
   * @throws RuntimeException anything else rolls the transaction back and is retried with backoff
   */
  void handle(DSLContext tx, Envelope message);

  /**
   * What the handler must hold before its first statement, computed in the inbox row's own
   * statement ({@code WITH inbox_row AS (INSERT INTO inbox ...) SELECT <lock>}), so it costs no
   * round trip of its own: typically a transaction-scoped advisory lock on the message's aggregate,
   * e.g. {@code pg_advisory_xact_lock(...)}, held until the transaction ends. Its value is not
   * handed back. A message applied before fails that statement on {@code inbox_pkey}, and the
   * transaction (with the lock) ends at once.
   *
   * @return the expression to evaluate with the inbox row, or null (the default) for none
   * @throws PoisonMessageException when the message can never be applied (the consumer skips it)
   */
  default Field<?> lockFor(Envelope message) {
    return null;
  }
}
