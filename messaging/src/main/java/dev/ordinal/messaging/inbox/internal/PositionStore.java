package dev.ordinal.messaging.inbox.internal;

import static dev.ordinal.messaging.db.Tables.INBOX_POSITION;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.jooq.DSLContext;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where each partition stands in the database ({@code inbox_position}): stored after each batch's
 * transactions committed and before Kafka is told, and read on assignment to start each partition
 * from the lower of that and Kafka's committed offset.
 */
final class PositionStore {
  private static final Logger log = LoggerFactory.getLogger(PositionStore.class);

  private final DSLContext dsl;
  private final String consumerName;

  PositionStore(DSLContext dsl, String consumerName) {
    this.dsl = dsl;
    this.consumerName = consumerName;
  }

  /**
   * On assignment, seeks each partition whose stored position is below Kafka's committed offset to
   * that position. They agree in normal running; the database is behind when it was restored to an
   * earlier point, and then what it lost is applied again (what it kept of it is dropped by the
   * inbox). A partition without a stored position starts from the committed offset.
   *
   * @return how many records are read again, over all {@code partitions}
   */
  long startFromDatabase(Consumer<String, String> consumer, Collection<TopicPartition> partitions) {
    if (partitions.isEmpty()) {
      return 0;
    }
    Map<TopicPartition, OffsetAndMetadata> committed =
        consumer.committed(Set.copyOf(partitions), Duration.ofSeconds(10));
    Map<TopicPartition, Long> stored = load(partitions);
    long rewound = 0;
    for (TopicPartition tp : partitions) {
      OffsetAndMetadata c = committed.get(tp);
      Long position = stored.get(tp);
      if (c == null || position == null || position >= c.offset()) {
        continue;
      }
      log.warn(
          "{}: {} starts at {}, where its database stands, not at the committed {}: the database"
              + " was restored to an earlier point, so {} record(s) are read again (those it still"
              + " holds are dropped as duplicates)",
          consumerName,
          tp,
          position,
          c.offset(),
          c.offset() - position);
      consumer.seek(tp, position);
      rewound += c.offset() - position;
    }
    return rewound;
  }

  private Map<TopicPartition, Long> load(Collection<TopicPartition> partitions) {
    Map<TopicPartition, Long> stored = new HashMap<>();
    dsl.select(INBOX_POSITION.TOPIC, INBOX_POSITION.PARTITION_NO, INBOX_POSITION.NEXT_OFFSET)
        .from(INBOX_POSITION)
        .where(INBOX_POSITION.CONSUMER.eq(consumerName))
        .and(INBOX_POSITION.TOPIC.in(partitions.stream().map(TopicPartition::topic).toList()))
        .forEach(r -> stored.put(new TopicPartition(r.value1(), r.value2()), r.value3()));
    return stored;
  }

  /**
   * Stores where each partition stands, after the batch's transactions committed and before Kafka
   * is told; a stored position only moves forward. A failure only means reading more again after a
   * reassignment: logged, not fatal.
   */
  void store(Map<TopicPartition, OffsetAndMetadata> offsets) {
    if (offsets.isEmpty()) {
      return;
    }
    try {
      var insert =
          dsl.insertInto(
              INBOX_POSITION,
              INBOX_POSITION.CONSUMER,
              INBOX_POSITION.TOPIC,
              INBOX_POSITION.PARTITION_NO,
              INBOX_POSITION.NEXT_OFFSET);
      for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
        insert =
            insert.values(
                consumerName, e.getKey().topic(), e.getKey().partition(), e.getValue().offset());
      }
      insert
          .onConflict(INBOX_POSITION.CONSUMER, INBOX_POSITION.TOPIC, INBOX_POSITION.PARTITION_NO)
          .doUpdate()
          // never back: a member evicted while it applied a batch (frozen, too slow) stores its
          // stale position after the partition's new owner stored a later one; taken as it came,
          // it would undo an operator's skip (a replay moves the position forward) and make the
          // next owner read again what was applied
          .set(
              INBOX_POSITION.NEXT_OFFSET,
              DSL.greatest(INBOX_POSITION.NEXT_OFFSET, DSL.excluded(INBOX_POSITION.NEXT_OFFSET)))
          .set(INBOX_POSITION.UPDATED_AT, DSL.currentOffsetDateTime())
          .execute();
    } catch (DataAccessException e) {
      log.warn("{}: positions not stored: {}", consumerName, e.toString());
    }
  }
}
