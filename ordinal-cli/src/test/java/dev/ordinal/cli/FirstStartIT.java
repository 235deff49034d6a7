package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.billing.BillingApp;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.PaymentGatewaySimulator;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.order.NewOrder;
import dev.ordinal.order.OrderServiceApp;
import dev.ordinal.order.PlacedOrder;
import dev.ordinal.relay.RelayApp;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Orders written while no relay has ever run (order-service deployed first, its outbox retention on
 * as by default) reach billing when the relay first starts: the rows older than the relay's slot
 * are published before its stream, so billing applies each event once, and each order's events in
 * the order they were written. (Before, the relay streamed from the moment it made its slot and
 * none of them ever reached billing.)
 */
@ExtendWith(OrdinalStackExtension.class)
class FirstStartIT {
  @Test
  void everyOrderWrittenBeforeTheRelaysFirstStartReachesBillingOnceInOrder(TestNamespace ns)
      throws Exception {
    int placedOrders = 20; // and the first few of them cancelled
    int cancelled = 5;
    DatabaseSettings db = Pipeline.db(ns);
    KafkaClients kafka = KafkaClients.of(ns.stack().kafkaBootstrap());
    String orders = ns.schema("orders_first");
    String billingSchema = ns.schema("billing_first");
    String prefix = ns.topicPrefix() + "-first";
    DSLContext sql = DSL.using(ns.dataSource(), SQLDialect.POSTGRES);
    try (IntegratorSimulator integrator = Pipeline.quickIntegrator();
        PaymentGatewaySimulator gateway = Pipeline.quickGateway();
        OrderServiceApp orderService = Pipeline.orderService(db, orders)) {
      List<PlacedOrder> placed = new ArrayList<>();
      for (int i = 0; i < placedOrders; i++) {
        placed.add(
            orderService.orders().place(NewOrder.single("c-" + i, "EUR", new BigDecimal("9.50"))));
      }
      for (PlacedOrder p : placed.subList(0, cancelled)) {
        orderService.orders().cancel(p.orderId(), "changed my mind");
      }
      // the outbox holds every event, and no relay has ever made a slot
      Map<String, String> aggregateOf = new HashMap<>();
      sql.select(field("id"), field("aggregate_id"))
          .from(DSL.table(DSL.name(orders, "outbox")))
          .orderBy(field("occurred_at"), field("id"))
          .forEach(r -> aggregateOf.put(r.get(0, String.class), r.get(1, String.class)));
      assertThat(aggregateOf).hasSize(placedOrders + cancelled);

      try (BillingApp billing =
              BillingApp.start(
                  Pipeline.billing(
                      db,
                      kafka,
                      billingSchema,
                      prefix,
                      ns.group("billing-first"),
                      integrator,
                      gateway));
          RelayApp relay = Pipeline.relay(db, kafka, List.of(orders, billingSchema), prefix)) {
        await()
            .atMost(Duration.ofSeconds(90))
            .until(() -> inbox(sql, billingSchema, prefix).size() == placedOrders + cancelled);
        List<Record> applied = inbox(sql, billingSchema, prefix);
        assertThat(applied.stream().map(r -> r.get(0, String.class)).collect(Collectors.toSet()))
            .as("each event applied once")
            .isEqualTo(aggregateOf.keySet());

        // per order, its events were applied in the order they were written: placed, cancelled
        Map<String, List<String>> byOrder = new HashMap<>();
        for (Record r : applied) { // in partition and offset order
          byOrder
              .computeIfAbsent(aggregateOf.get(r.get(0, String.class)), k -> new ArrayList<>())
              .add(r.get(0, String.class));
        }
        Map<String, List<String>> written = new HashMap<>();
        sql.select(field("id"), field("aggregate_id"))
            .from(DSL.table(DSL.name(orders, "outbox")))
            .orderBy(field("occurred_at"), field("id"))
            .forEach(
                r ->
                    written
                        .computeIfAbsent(r.get(1, String.class), k -> new ArrayList<>())
                        .add(r.get(0, String.class)));
        assertThat(byOrder).isEqualTo(written);
        assertThat(byOrder.values().stream().filter(l -> l.size() == 2).count())
            .isEqualTo(cancelled);
        assertThat(billing.health().ready()).as(billing.health().toString()).isTrue();
        assertThat(Set.copyOf(relay.relays()).size()).isEqualTo(2);
      }
    }
  }

  /** Billing's inbox rows of the order topics: message id, by partition and offset. */
  private static List<Record> inbox(DSLContext sql, String schema, String prefix) {
    return sql
        .select(field("message_id"))
        .from(DSL.table(DSL.name(schema, "inbox")))
        .where(field("topic").in(prefix + ".order", prefix + ".order-bulk"))
        .orderBy(field("topic"), field("partition_no"), field("record_offset"))
        .fetch()
        .stream()
        .map(r -> (Record) r)
        .toList();
  }

  private static Field<Object> field(String name) {
    return DSL.field(DSL.name(name));
  }
}
