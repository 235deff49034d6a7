package dev.ordinal.relay;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.messaging.db.Tables.INBOX;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.billing.BillingApp;
import dev.ordinal.billing.GapAudit;
import dev.ordinal.lab.demo.LocalSystem;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.order.NewOrder;
import dev.ordinal.order.PlacedOrder;
import dev.ordinal.testkit.ConnectWorker;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.io.File;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.jooq.DSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Billing on the records Kafka Connect relays, as a user runs it: order-service places orders, a
 * distributed Connect worker with exactly-once source support relays its outbox with the
 * configuration {@code relay connect-config} prints, Ordinal's transformation loaded from the
 * {@code ordinal-connect-transforms} jar on its {@code plugin.path} (no Ordinal class on the
 * worker's class path), and billing, with its default settings, invoices every order once: each
 * record applied once, every series without a gap.
 */
@ExtendWith(OrdinalStackExtension.class)
class ConnectBillingIT {
  static final int ORDERS = 200;

  @Test
  void billingInvoicesEachOrderRelayedByConnectOnce(TestNamespace ns) throws Exception {
    DatabaseSettings db =
        new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword());
    String orderSchema = ns.schema("orders");
    String bootstrap = ns.stack().kafkaBootstrap();
    Path plugins = Files.createDirectories(Path.of("target", "connect-plugins-" + ns.name()));
    Files.copy(
        pluginJar(),
        plugins.resolve("ordinal-connect-transforms.jar"),
        StandardCopyOption.REPLACE_EXISTING);

    RelayConfig relay =
        RelayConfig.builder(db, bootstrap, orderSchema, ns.topicPrefix())
            .topicDurability(new Topics.Durability(1, 1))
            .build();
    String connector = ConnectorConfig.name(relay);
    try (LocalSystem system =
            LocalSystem.forTests(db, bootstrap, orderSchema)
                .billing(
                    b ->
                        b.schema(ns.schema("billing"))
                            .topicPrefix(ns.topicPrefix())
                            .group(ns.group("billing")))
                .withoutRelay()
                .start();
        ConnectWorker worker = ConnectWorker.start(ns, 1, db.password(), plugins)) {
      assertThat(worker.create(ConnectorConfig.json(relay))).as("POST /connectors").isEqualTo(201);
      worker.awaitRunning(connector);
      BillingApp billing = system.billing();
      DSLContext billingDb = billing.dsl();

      Set<UUID> placed = new HashSet<>();
      for (int i = 0; i < ORDERS; i++) {
        PlacedOrder p =
            system
                .orders()
                .orders()
                .place(NewOrder.single("customer-" + i, "EUR", new BigDecimal("10.00")));
        placed.add(p.orderId());
      }

      await("billing invoiced " + ORDERS + " orders")
          .atMost(Duration.ofSeconds(120))
          .until(() -> billingDb.fetchCount(INVOICE, INVOICE.STATUS.eq("ISSUED")) >= ORDERS);
      List<UUID> invoiced =
          billingDb.select(INVOICE.ORDER_ID).from(INVOICE).fetch(INVOICE.ORDER_ID);
      List<GapAudit.SeriesReport> audit = new GapAudit(billingDb).run(null);
      System.out.printf(
          "connect billing: %d orders, %d invoices, applied %d, duplicates %d, series %s%n",
          ORDERS,
          invoiced.size(),
          billing.applied(),
          billing.duplicates(),
          audit.stream().map(r -> r.series() + " 1.." + r.highest()).toList());
      assertThat(new HashSet<>(invoiced)).as("each order invoiced").isEqualTo(placed);
      assertThat(invoiced).as("once").hasSize(ORDERS);
      assertThat(billingDb.fetchCount(INBOX)).as("inbox rows").isEqualTo(ORDERS);
      assertThat(billing.applied()).isEqualTo(ORDERS);
      assertThat(billing.duplicates()).as("duplicates").isZero();
      assertThat(audit).allMatch(GapAudit.SeriesReport::clean, "no gap, no duplicate");
      assertThat(audit.stream().mapToLong(GapAudit.SeriesReport::highest).sum())
          .as("numbers issued")
          .isEqualTo(ORDERS);
    } finally {
      ns.dropInactiveSlots(List.of(relay.slotName()));
    }
  }

  /** The plugin jar {@code connect-transforms} packaged, as this test's class path names it. */
  static Path pluginJar() {
    return Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
        .map(Path::of)
        .filter(p -> p.getFileName().toString().startsWith("ordinal-connect-transforms-"))
        .filter(p -> p.toString().endsWith(".jar"))
        .findFirst()
        .orElseThrow(
            () ->
                new AssertionError(
                    "no ordinal-connect-transforms jar on the class path: run mvn verify"));
  }
}
