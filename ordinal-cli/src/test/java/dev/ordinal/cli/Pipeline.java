package dev.ordinal.cli;

import dev.ordinal.billing.BillingSettings;
import dev.ordinal.lab.sim.IntegratorFaults;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.PaymentGatewayFaults;
import dev.ordinal.lab.sim.PaymentGatewaySimulator;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.order.ApiAuth;
import dev.ordinal.order.OrderServiceApp;
import dev.ordinal.order.OrderServiceSettings;
import dev.ordinal.relay.RelayApp;
import dev.ordinal.relay.RelaySettings;
import dev.ordinal.runtime.ManagementSettings;
import java.time.Duration;
import java.util.List;

/**
 * The services of one pipe, in process, for the tests that carry an order from the API to an issued
 * invoice: order-service, the relay of the orders' and billing's outboxes, billing with an
 * integrator and a gateway that answer in milliseconds. No management port.
 */
final class Pipeline {
  private Pipeline() {}

  static IntegratorSimulator quickIntegrator() {
    return new IntegratorSimulator(
            0, IntegratorFaults.defaults().withLatency(Duration.ofMillis(1), Duration.ofMillis(5)))
        .start();
  }

  static PaymentGatewaySimulator quickGateway() {
    return new PaymentGatewaySimulator(
            0,
            PaymentGatewayFaults.defaults().withLatency(Duration.ofMillis(1), Duration.ofMillis(5)))
        .start();
  }

  /** The test stack's database, as its admin. */
  static DatabaseSettings db(dev.ordinal.testkit.TestNamespace ns) {
    return new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword());
  }

  /** order-service on {@code schema}, started; it opens no Kafka connection. */
  static OrderServiceApp orderService(DatabaseSettings db, String schema) {
    return new OrderServiceApp(
            OrderServiceSettings.builder(db)
                .auth(ApiAuth.none())
                .schema(schema)
                .port(0)
                .poolSize(2)
                .management(ManagementSettings.off())
                .build())
        .start();
  }

  /** Billing's settings: its schema, topic prefix and group, the simulators' addresses. */
  static BillingSettings billing(
      DatabaseSettings db,
      KafkaClients kafka,
      String schema,
      String prefix,
      String group,
      IntegratorSimulator integrator,
      PaymentGatewaySimulator gateway) {
    return BillingSettings.builder(db, kafka)
        .schema(schema)
        .topicPrefix(prefix)
        .group(group)
        .integrator(integrator.baseUri())
        .gateway(gateway.baseUri())
        .allowShortRetention(true)
        .management(ManagementSettings.off())
        .build();
  }

  /** The relay of the outboxes of {@code schemas}, started. */
  static RelayApp relay(
      DatabaseSettings db, KafkaClients kafka, List<String> schemas, String prefix) {
    return new RelayApp(
            RelaySettings.builder(db, kafka)
                .schemas(schemas)
                .topicPrefix(prefix)
                .management(ManagementSettings.off())
                .build())
        .start();
  }
}
