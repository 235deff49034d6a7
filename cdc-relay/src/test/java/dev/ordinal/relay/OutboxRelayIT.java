package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.db.Tables;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.order.NewOrder;
import dev.ordinal.order.OrderService;
import dev.ordinal.order.PlacedOrder;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(OrdinalStackExtension.class)
class OutboxRelayIT {
  @AutoClose static HikariDataSource pool;
  static DSLContext dsl;
  static OrderService orders;
  @AutoClose static OutboxRelay relay;
  static String topic;

  @BeforeAll
  static void start(TestNamespace ns, @TempDir Path dir) throws Exception {
    DatabaseSettings db = RelayFixture.ownerSettings(ns);
    pool = db.pool("orders", 4);
    OrderService.migrate(pool, ns.schema());
    dsl = DSL.using(pool, SQLDialect.POSTGRES);
    orders = new OrderService(dsl, Clock.systemUTC());
    topic = ns.topic("order");
    relay = RelayFixture.streaming(ns, db);
  }

  @Test
  void rolledBackOrderPublishesNothingWhileALaterCommittedOrderArrives(TestNamespace ns) {
    AtomicReference<PlacedOrder> rolledBack = new AtomicReference<>();
    try {
      dsl.transaction(
          c -> {
            rolledBack.set(orders.place(c.dsl(), order("rollback-customer")));
            throw new IllegalStateException("roll back on purpose");
          });
    } catch (IllegalStateException expected) {
      // the transaction rolled back
    }
    PlacedOrder committed = orders.place(order("committed-customer"));

    List<ConsumerRecord<String, String>> seen = TopicProbe.readExactly(ns, topic, 1);
    assertThat(seen).hasSize(1);
    ConsumerRecord<String, String> record = seen.get(0);
    assertThat(record.key()).isEqualTo(committed.orderId().toString());
    assertThat(MessageHeaders.get(record.headers(), MessageHeaders.MESSAGE_ID))
        .contains(committed.messageId().toString());
    assertThat(record.key()).isNotEqualTo(rolledBack.get().orderId().toString());
    assertThat(dsl.fetchCount(Tables.OUTBOX)).isEqualTo(1);
  }

  static NewOrder order(String customer) {
    return NewOrder.single(customer, "EUR", new BigDecimal("42.00"));
  }
}
