package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.contracts.EventCodec;
import dev.ordinal.contracts.OrderPlacedV1;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.db.Tables;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.messaging.outbox.OutboxRetentionMode;
import dev.ordinal.order.CancelOutcome;
import dev.ordinal.order.NewOrder;
import dev.ordinal.order.OrderService;
import dev.ordinal.order.PlacedOrder;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The CDC relay publishes events whose outbox rows were deleted in the writing transaction. */
@ExtendWith(OrdinalStackExtension.class)
class DeleteOnWriteRelayIT {

  @Test
  void fiveEventsDeletedOnWriteArePublishedOnceEachAndTheTableStaysEmpty(
      TestNamespace ns, @TempDir Path dir) throws Exception {
    DatabaseSettings db = RelayFixture.ownerSettings(ns);
    String topic = ns.topic("order");
    try (HikariDataSource pool = db.pool("delete-on-write", 2)) {
      OrderService.migrate(pool, ns.schema());
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      Outbox outbox = new Outbox(Clock.systemUTC(), OutboxRetentionMode.DELETE_ON_WRITE);
      try (OutboxRelay relay = RelayFixture.streaming(ns, db)) {

        List<UUID> ids = new ArrayList<>();
        dsl.transaction(
            c -> {
              for (int i = 1; i <= 3; i++) {
                ids.add(outbox.append(c.dsl(), TestEvents.placed("order-" + i)));
              }
            });
        // an order and its cancellation, each one statement plus the delete
        OrderService orders = new OrderService(dsl, outbox, Clock.systemUTC());
        PlacedOrder placed = orders.place(NewOrder.single("dow", "EUR", BigDecimal.TEN));
        CancelOutcome cancelled = orders.cancel(placed.orderId(), "delete on write");
        assertThat(cancelled.result()).isEqualTo(CancelOutcome.Result.CANCELLED);
        ids.add(placed.messageId());
        ids.add(cancelled.messageId().orElseThrow());
        assertThat(dsl.fetchCount(Tables.OUTBOX)).isZero();

        // the deletes published nothing: five records in the topic
        List<ConsumerRecord<String, String>> seen = TopicProbe.readExactly(ns, topic, 5);
        assertThat(seen)
            .map(r -> MessageHeaders.get(r.headers(), MessageHeaders.MESSAGE_ID).orElseThrow())
            .containsExactlyInAnyOrderElementsOf(ids.stream().map(UUID::toString).toList());
        String orderKey = placed.orderId().toString();
        // as jsonb prints them: the contract reads them as written
        assertThat(seen.stream().filter(r -> !orderKey.equals(r.key())).toList())
            .map(r -> EventCodec.fromJson(r.value(), OrderPlacedV1.class))
            .containsExactlyInAnyOrder(
                TestEvents.placedEvent("order-1"),
                TestEvents.placedEvent("order-2"),
                TestEvents.placedEvent("order-3"));
        assertThat(seen.stream().filter(r -> orderKey.equals(r.key())).toList())
            .map(r -> MessageHeaders.get(r.headers(), MessageHeaders.MESSAGE_ID).orElseThrow())
            .as("the order's events, in their order")
            .containsExactly(
                placed.messageId().toString(), cancelled.messageId().orElseThrow().toString());
      }
    }
  }
}
