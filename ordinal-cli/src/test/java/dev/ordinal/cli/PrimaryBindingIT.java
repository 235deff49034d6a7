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
import dev.ordinal.relay.RelayApp;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.ReplicatedPostgres;
import dev.ordinal.testkit.TestNamespace;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jooq.CloseableDSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * order-service, the relay and billing, given the multi-host URL a team with a hot standby uses
 * with the standby's host first: each binds its pool to the primary ({@code
 * targetServerType=primary}), so an order placed is stored, relayed, invoiced and charged, every
 * row on the primary. order-service and billing used to take the first host as it was: every write
 * there failed (SQLSTATE 25006, read-only transaction), and order-service's migrations at start
 * retried it without end.
 */
@ExtendWith(OrdinalStackExtension.class)
class PrimaryBindingIT {
  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES) // unbound, a start on the standby never ends
  void withTheStandbyFirstInTheUrlEveryServiceWritesToThePrimary(
      TestNamespace ns, @TempDir Path dir) throws Exception {
    String prefix = ns.topicPrefix() + "-primary";
    try (ReplicatedPostgres pg = ReplicatedPostgres.start(dir);
        IntegratorSimulator integrator = Pipeline.quickIntegrator();
        PaymentGatewaySimulator gateway = Pipeline.quickGateway()) {
      DatabaseSettings db =
          new DatabaseSettings(
              "jdbc:postgresql://localhost:"
                  + pg.standbyPort()
                  + ",localhost:"
                  + pg.primaryPort()
                  + "/postgres",
              pg.user(),
              pg.password());
      KafkaClients kafka = KafkaClients.of(ns.stack().kafkaBootstrap());
      try (OrderServiceApp orderService = Pipeline.orderService(db, "orders");
          BillingApp billing =
              BillingApp.start(
                  Pipeline.billing(
                      db,
                      kafka,
                      "billing",
                      prefix,
                      ns.group("billing-primary"),
                      integrator,
                      gateway));
          RelayApp relay = Pipeline.relay(db, kafka, List.of("orders", "billing"), prefix)) {
        for (var r : relay.relays()) {
          r.awaitStreaming(Duration.ofSeconds(60));
        }
        orderService.orders().place(NewOrder.single("c-primary", "EUR", new BigDecimal("7.00")));

        try (CloseableDSLContext primary = DSL.using(pg.primaryUrl(), pg.user(), pg.password())) {
          await()
              .atMost(Duration.ofSeconds(90))
              .until(
                  () ->
                      primary.fetchCount(
                              DSL.table(DSL.name("billing", "invoice")),
                              DSL.field(DSL.name("status")).eq("ISSUED"))
                          == 1);
          assertThat(primary.fetchCount(DSL.table(DSL.name("orders", "orders")))).isEqualTo(1);
          assertThat(integrator.acceptedCount()).isEqualTo(1);
          assertThat(billing.health().ready()).as(billing.health().toString()).isTrue();
        }
      }
    }
  }
}
