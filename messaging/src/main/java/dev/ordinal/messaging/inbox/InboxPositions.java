package dev.ordinal.messaging.inbox;

import static dev.ordinal.messaging.db.Tables.INBOX_POSITION;

import dev.ordinal.messaging.RefusedException;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * Where an inbox consumer's database says it stands ({@code inbox_position}), for an operator's
 * replay. The consumer starts each partition from the lower of that position and Kafka's committed
 * offset ({@link InboxConsumer}), so a replay that moves the committed offset back is read again as
 * it is, but one that moves it forward (a skip) would be undone by the stored position: {@link
 * #skipTo} moves the stored positions forward with it, in the replay's own transaction.
 */
public final class InboxPositions {
  private InboxPositions() {}

  /**
   * Moves the stored positions of {@code consumer} on {@code topic} forward to {@code next}
   * (partition to the offset it starts from), never back; a partition without a stored position
   * starts from the committed offset already and is left alone. Nothing is moved in a schema
   * without {@code inbox_position} (no inbox consumer stores positions there).
   *
   * @param tx the transaction, on the schema of the consumer's inbox
   * @return how many partitions' stored positions moved
   * @throws RefusedException when {@code consumer} stores no position on {@code topic} there but
   *     another inbox consumer does (a {@code --consumer} that names the wrong one would leave the
   *     skip undone)
   */
  public static int skipTo(DSLContext tx, String consumer, String topic, Map<Integer, Long> next) {
    if (next.isEmpty()
        || !tx.fetchExists(
            DSL.selectOne()
                .from(DSL.table(DSL.name("information_schema", "tables")))
                .where(
                    DSL.field(DSL.name("table_schema"), String.class).eq(DSL.currentSchema()),
                    DSL.field(DSL.name("table_name"), String.class)
                        .eq(INBOX_POSITION.getName())))) {
      return 0;
    }
    List<String> consumers =
        tx.selectDistinct(INBOX_POSITION.CONSUMER)
            .from(INBOX_POSITION)
            .where(INBOX_POSITION.TOPIC.eq(topic))
            .orderBy(INBOX_POSITION.CONSUMER)
            .fetch(INBOX_POSITION.CONSUMER);
    if (!consumers.isEmpty() && !consumers.contains(consumer)) {
      // a misnamed consumer must not pass silently: the one the group serves would undo the skip
      throw new RefusedException(
          "Inbox consumer "
              + String.join(", ", consumers)
              + " stores positions on "
              + topic
              + " in this schema, and "
              + consumer
              + " none: name the one the group serves with --consumer, or it would apply what the"
              + " skip leaves out.");
    }
    int moved = 0;
    for (Map.Entry<Integer, Long> e : next.entrySet()) {
      moved +=
          tx.update(INBOX_POSITION)
              .set(INBOX_POSITION.NEXT_OFFSET, e.getValue())
              .set(INBOX_POSITION.UPDATED_AT, DSL.currentOffsetDateTime())
              .where(
                  INBOX_POSITION.CONSUMER.eq(consumer),
                  INBOX_POSITION.TOPIC.eq(topic),
                  INBOX_POSITION.PARTITION_NO.eq(e.getKey()),
                  INBOX_POSITION.NEXT_OFFSET.lt(e.getValue()))
              .execute();
    }
    return moved;
  }
}
