package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.db.Tables;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.order.NewOrder;
import dev.ordinal.order.OrderService;
import dev.ordinal.order.PlacedOrder;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(OrdinalStackExtension.class)
class OutboxRelayIT {
  static HikariDataSource pool;
  static DSLContext dsl;
  static OrderService orders;
  static OutboxRelay relay;
  static String topic;

  @BeforeAll
  static void start(TestNamespace ns, @TempDir Path dir) throws Exception {
    DatabaseSettings db =
        new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword())
            .withSchema(ns.schema());
    pool = db.pool("orders", 4);
    OrderService.migrate(pool, ns.schema());
    dsl = DSL.using(pool, SQLDialect.POSTGRES);
    orders = new OrderService(dsl, Clock.systemUTC());
    topic = ns.topic("order");
    relay =
        new OutboxRelay(
                RelayConfig.builder(db, ns.stack().kafkaBootstrap(), ns.schema(), ns.topicPrefix())
                    .slot(ns.name() + "_slot", ns.name() + "_pub", true)
                    .build(),
                new SimpleMeterRegistry())
            .start();
    relay.awaitStreaming(Duration.ofSeconds(60));
  }

  @AfterAll
  static void stop() {
    if (relay != null) {
      relay.close();
    }
    if (pool != null) {
      pool.close();
    }
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

    List<ConsumerRecord<String, String>> seen = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = probe(ns)) {
      consumer.subscribe(List.of(topic));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                consumer.poll(Duration.ofMillis(100)).forEach(seen::add);
                return !seen.isEmpty();
              });
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      long recordsInTopic =
          consumer.endOffsets(partitions).values().stream().mapToLong(Long::longValue).sum();
      assertThat(recordsInTopic).isEqualTo(1);
    }
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

  static KafkaConsumer<String, String> probe(TestNamespace ns) {
    return new KafkaConsumer<>(
        Map.<String, Object>of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, ns.stack().kafkaBootstrap(),
            ConsumerConfig.GROUP_ID_CONFIG, ns.group("probe"),
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
        new StringDeserializer(),
        new StringDeserializer());
  }
}
