package dev.ordinal.messaging.inbox.internal;

import static dev.ordinal.messaging.db.Tables.INBOX;

import dev.ordinal.messaging.inbox.Envelope;
import dev.ordinal.messaging.inbox.MessageHandler;
import java.time.Clock;
import java.time.OffsetDateTime;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.InsertSetMoreStep;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * One message applied once: in one transaction, the inbox row (message id, consumer) first, with
 * the handler's {@link MessageHandler#lockFor lock} in the same statement, then the handler's
 * business write. A unique violation (SQLSTATE 23505) on exactly {@value #INBOX_CONSTRAINT} means
 * the consumer applied the message before: nothing of the transaction stays.
 *
 * <p>Internal to the inbox: {@link dev.ordinal.messaging.inbox.InboxConsumer} is its public face.
 */
public record InboxTransaction(
    DSLContext dsl, String consumer, MessageHandler handler, Clock clock) {
  /** The inbox's primary key: a violation of it, and only it, means "duplicate". */
  public static final String INBOX_CONSTRAINT = "inbox_pkey";

  private static final String UNIQUE_VIOLATION = "23505";

  /**
   * Applies {@code message} in a transaction of its own.
   *
   * @return true when applied, false when this consumer had applied it before (nothing written)
   * @throws RuntimeException what the handler or the database threw; the transaction rolled back
   */
  public boolean apply(Envelope message) {
    try {
      dsl.transaction(
          c -> {
            insertRow(c.dsl(), message, handler.lockFor(message));
            handler.handle(c.dsl(), message);
          });
      return true;
    } catch (DataAccessException e) {
      if (isInboxDuplicate(e)) {
        return false;
      }
      throw e;
    }
  }

  /** The inbox row, alone or with {@code lock} in one statement. */
  private void insertRow(DSLContext tx, Envelope message, Field<?> lock) {
    InsertSetMoreStep<?> row =
        tx.insertInto(INBOX)
            .set(INBOX.MESSAGE_ID, message.messageId())
            .set(INBOX.CONSUMER, consumer)
            .set(INBOX.TOPIC, message.topic())
            .set(INBOX.PARTITION_NO, message.partition())
            .set(INBOX.RECORD_OFFSET, message.offset())
            .set(INBOX.PROCESSED_AT, OffsetDateTime.now(clock));
    if (lock == null) {
      row.execute();
    } else {
      // PostgreSQL runs the insert whether or not the select reads it
      tx.with(DSL.name("inbox_row").as(row.returningResult(INBOX.MESSAGE_ID))).select(lock).fetch();
    }
  }

  /** True only for a unique violation of the inbox's own primary key. */
  public static boolean isInboxDuplicate(DataAccessException e) {
    if (!UNIQUE_VIOLATION.equals(e.sqlState())) {
      return false;
    }
    PSQLException pg = e.getCause(PSQLException.class);
    ServerErrorMessage detail = pg == null ? null : pg.getServerErrorMessage();
    return detail != null && INBOX_CONSTRAINT.equals(detail.getConstraint());
  }
}
