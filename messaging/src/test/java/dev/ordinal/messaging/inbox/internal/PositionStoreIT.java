package dev.ordinal.messaging.inbox.internal;

import static dev.ordinal.messaging.db.Tables.INBOX_POSITION;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A stored inbox position only moves forward: a member evicted in the middle of a batch (frozen, or
 * slower than max.poll.interval) stores its stale position after the partition's new owner stored a
 * later one, and that write must not put it back (it would undo an operator's skip).
 */
@ExtendWith(OrdinalStackExtension.class)
class PositionStoreIT {

  @Test
  void aStalePositionFromAnEvictedMemberDoesNotPutTheStoredOneBack(TestNamespace ns) {
    Migrations.applyInbox(ns.dataSource(), ns.schema());
    DSLContext dsl = DSL.using(ns.dataSource(), SQLDialect.POSTGRES);
    TopicPartition p0 = new TopicPartition("orders", 0);
    TopicPartition p1 = new TopicPartition("orders", 1);
    PositionStore newOwner = new PositionStore(dsl, "billing");
    PositionStore evicted = new PositionStore(dsl, "billing");

    newOwner.store(Map.of(p0, new OffsetAndMetadata(200), p1, new OffsetAndMetadata(40)));
    evicted.store(Map.of(p0, new OffsetAndMetadata(150), p1, new OffsetAndMetadata(41)));

    assertThat(
            dsl.select(INBOX_POSITION.PARTITION_NO, INBOX_POSITION.NEXT_OFFSET)
                .from(INBOX_POSITION)
                .where(INBOX_POSITION.CONSUMER.eq("billing"))
                .fetchMap(INBOX_POSITION.PARTITION_NO, INBOX_POSITION.NEXT_OFFSET))
        .containsExactlyInAnyOrderEntriesOf(Map.of(0, 200L, 1, 41L));
  }
}
