package dev.ordinal.messaging.inbox;

import static dev.ordinal.messaging.db.Tables.INBOX;

import java.time.OffsetDateTime;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.InsertSetMoreStep;
import org.jooq.Record;
import org.jooq.impl.DSL;

/**
 * The inbox row of one message for one consumer, handed to {@link MessageHandler#handle(DSLContext,
 * Envelope, InboxRow)}: the handler inserts it in its first statement, and may compute values of
 * its own in that same statement ({@link #insert(DSLContext, Field[])}), so the inbox costs no
 * round trip of its own. A message applied before fails that statement with a unique violation on
 * {@code inbox_pkey} (SQLSTATE 23505), as a separate insert would, and nothing of the transaction
 * stays.
 *
 * <p>Inserted at most once; {@link InboxConsumer} refuses a handler that returns without inserting
 * it (the transaction rolls back and the record is retried).
 */
public final class InboxRow {
  private final Envelope message;
  private final String consumer;
  private final OffsetDateTime processedAt;
  private boolean inserted;

  public InboxRow(Envelope message, String consumer, OffsetDateTime processedAt) {
    this.message = message;
    this.consumer = consumer;
    this.processedAt = processedAt;
  }

  /**
   * Inserts the row. With {@code alongside} values, one statement does both: {@code WITH inbox_row
   * AS (INSERT INTO inbox ...) SELECT <alongside>}, e.g. a transaction-scoped advisory lock the
   * handler takes before it reads. PostgreSQL runs the insert whether or not the select reads it.
   *
   * @return the {@code alongside} values, or null when none were asked for
   * @throws IllegalStateException when the row was inserted already
   */
  public Record insert(DSLContext tx, Field<?>... alongside) {
    if (inserted) {
      throw new IllegalStateException(
          "The inbox row of message " + message.messageId() + " was inserted already");
    }
    InsertSetMoreStep<?> row =
        tx.insertInto(INBOX)
            .set(INBOX.MESSAGE_ID, message.messageId())
            .set(INBOX.CONSUMER, consumer)
            .set(INBOX.TOPIC, message.topic())
            .set(INBOX.PARTITION_NO, message.partition())
            .set(INBOX.RECORD_OFFSET, message.offset())
            .set(INBOX.PROCESSED_AT, processedAt);
    Record values = null;
    if (alongside.length == 0) {
      row.execute();
    } else {
      values =
          tx.with(DSL.name("inbox_row").as(row.returningResult(INBOX.MESSAGE_ID)))
              .select(alongside)
              .fetchOne();
    }
    inserted = true;
    return values;
  }

  /** True once {@link #insert} ran (in this transaction). */
  public boolean inserted() {
    return inserted;
  }
}
