package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.billing.BillingApp;
import dev.ordinal.billing.BillingSettings;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.PaymentGatewaySimulator;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.order.NewOrder;
import dev.ordinal.order.OrderServiceApp;
import dev.ordinal.relay.RelayApp;
import dev.ordinal.relay.RelaySettings;
import dev.ordinal.runtime.ManagementSettings;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The partition count is a setting of the services that create topics: with {@code --partitions 6}
 * on the relay and on billing, a billing group of six instances has six partitions of the order
 * topic to share, and every instance applies orders (with the old fixed three, three of six idled).
 */
@ExtendWith(OrdinalStackExtension.class)
class WidePartitionsIT {
  static final int INSTANCES = 6;
  static final int ORDERS = 120;

  @Test
  void sixBillingInstancesOnSixPartitionTopicsEachApplyOrders(TestNamespace ns) throws Exception {
    DatabaseSettings db = Pipeline.db(ns);
    KafkaClients kafka = KafkaClients.of(ns.stack().kafkaBootstrap());
    String orders = ns.schema("orders_wide");
    String billingSchema = ns.schema("billing_wide");
    String prefix = ns.topicPrefix() + "-wide";
    String group = ns.group("billing-wide");
    List<BillingApp> billing = new ArrayList<>();
    try (IntegratorSimulator integrator = Pipeline.quickIntegrator();
        PaymentGatewaySimulator gateway = Pipeline.quickGateway();
        OrderServiceApp orderService = Pipeline.orderService(db, orders);
        RelayApp relay =
            new RelayApp(
                    RelaySettings.builder(db, kafka)
                        .schemas(List.of(orders))
                        .topicPrefix(prefix)
                        .topicPartitions(INSTANCES)
                        .management(ManagementSettings.off())
                        .build())
                .start();
        Admin admin =
            Admin.create(
                Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ns.stack().kafkaBootstrap()))) {
      try {
        for (int i = 0; i < INSTANCES; i++) {
          BillingSettings settings =
              Pipeline.billing(db, kafka, billingSchema, prefix, group, integrator, gateway)
                  .toBuilder()
                  .topicPartitions(INSTANCES)
                  .concurrency(1)
                  .issuerWorkers(1)
                  .instanceId("billing-" + i)
                  .build();
          billing.add(BillingApp.start(settings));
        }
        String topic = prefix + ".order";
        assertThat(
                admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions())
            .hasSize(INSTANCES);
        // the group settled: six members, each with a partition of the order topic
        await()
            .atMost(Duration.ofSeconds(90))
            .until(() -> membersOwning(admin, group, topic) == INSTANCES);

        for (int i = 0; i < ORDERS; i++) {
          orderService.orders().place(NewOrder.single("c-" + i, "EUR", new BigDecimal("3.00")));
        }
        await()
            .atMost(Duration.ofSeconds(120))
            .until(() -> billing.stream().mapToLong(BillingApp::applied).sum() == ORDERS);
        List<Long> applied = billing.stream().map(BillingApp::applied).toList();
        System.out.println("orders applied per billing instance: " + applied);
        assertThat(applied).as("every instance owns work").allMatch(n -> n > 0);
        assertThat(billing.stream().mapToLong(BillingApp::duplicates).sum()).isZero();
      } finally {
        billing.forEach(BillingApp::close);
      }
    }
  }

  /** Members of {@code group} that own at least one partition of {@code topic}. */
  private static long membersOwning(Admin admin, String group, String topic) throws Exception {
    ConsumerGroupDescription d =
        admin.describeConsumerGroups(List.of(group)).all().get().get(group);
    return d.members().stream()
        .map(MemberDescription::assignment)
        .filter(a -> a.topicPartitions().stream().anyMatch(tp -> tp.topic().equals(topic)))
        .count();
  }
}
