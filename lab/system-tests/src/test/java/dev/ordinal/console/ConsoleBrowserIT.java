package dev.ordinal.console;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.lab.demo.LocalSystem;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.ops.lag.LagQuery;
import dev.ordinal.ops.lag.LagReader;
import dev.ordinal.ops.lag.LagReaderConfig;
import dev.ordinal.order.NewOrder;
import dev.ordinal.relay.RelayConfig;
import dev.ordinal.runtime.ManagementSettings;
import dev.ordinal.runtime.ServiceApp;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.WebDriver;

/**
 * The console in Debian's headless Chromium (driven by Selenium through /usr/bin/chromedriver)
 * against a running pipe: order-service, the relay and billing in-process on the shared embedded
 * stack. The page shows what PostgreSQL and Kafka hold (outbox rows, invoices by status, the
 * billing group's lag as ops' {@link LagReader} reads it, each service ready), and shows the new
 * figures once an order is placed. Its two screenshots are docs/console/*.png (docs/CONSOLE.md).
 */
@ExtendWith(OrdinalStackExtension.class)
class ConsoleBrowserIT {
  private static final Duration WITHIN = Duration.ofSeconds(60);

  @Test
  void thePageShowsWhatTheDatabaseAndKafkaHoldAndChangesWhenAnOrderIsPlaced(
      TestNamespace ns, @TempDir Path profile) throws Exception {
    DatabaseSettings db =
        new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword());
    String orderSchema = ns.schema("orders");
    String billingSchema = ns.schema("billing");
    String group = ns.group("billing");
    String bootstrap = ns.stack().kafkaBootstrap();
    ManagementSettings freePort = ManagementSettings.local(0);
    try (LocalSystem system =
            LocalSystem.on(db, bootstrap)
                .quickSimulators()
                .orderService(o -> o.schema(orderSchema).port(0).poolSize(2).management(freePort))
                .billing(
                    b ->
                        b.schema(billingSchema)
                            .topicPrefix(ns.topicPrefix())
                            .group(group)
                            .management(freePort))
                .relay(r -> r.management(freePort))
                .start();
        LagReader lag = new LagReader(LagReaderConfig.of(bootstrap), Clock.systemUTC())) {
      for (var r : system.relay().relays()) {
        r.awaitStreaming(WITHIN);
      }
      DSLContext orderDb = system.orders().orders().dsl();
      DSLContext billingDb = system.billing().dsl();
      placeAndAwaitInvoice(system, billingDb, 1);

      List<ServiceApp> apps = List.of(system.orders(), system.relay(), system.billing());
      ConsoleSettings settings =
          ConsoleSettings.builder(db, KafkaClients.of(bootstrap))
              .set(ConsoleSettings.PORT, 0)
              .set(ConsoleSettings.MANAGEMENT_PORT, 0)
              .set(ConsoleSettings.OUTBOX_SCHEMAS, List.of(orderSchema, billingSchema))
              .set(ConsoleSettings.BILLING_SCHEMA, billingSchema)
              .set(
                  ConsoleSettings.SERVICES,
                  apps.stream()
                      .map(a -> URI.create("http://127.0.0.1:" + a.managementPort()))
                      .toList())
              .build();
      WebDriver browser = null;
      try (ConsoleServer console = ConsoleServer.start(settings)) {
        browser = Chromium.start(profile);
        browser.get(console.url());

        Map<String, String> before =
            awaitPageEqualsServers(browser, orderSchema, orderDb, billingDb, lag, group);
        System.out.println("console before the order: " + before);
        assertThat(before)
            .containsEntry("outbox:" + orderSchema + ":rows", "1")
            .containsEntry("invoices:ISSUED", "1")
            .containsEntry("group:" + group + ":lag", "0");
        assertThat(before.keySet().stream().filter(k -> k.startsWith("audit:")))
            .as("one series, numbered 1..1")
            .hasSize(1)
            .allSatisfy(k -> assertThat(before.get(k)).isEqualTo("1"));
        for (ServiceApp a : apps) {
          assertThat(Chromium.figures(browser))
              .extractingByKey("service:http://127.0.0.1:" + a.managementPort() + ":ready")
              .as(a.service())
              .isEqualTo("yes");
        }
        Chromium.screenshot(browser, "console-before.png");

        placeAndAwaitInvoice(system, billingDb, 2);
        Map<String, String> after =
            awaitPageEqualsServers(browser, orderSchema, orderDb, billingDb, lag, group);
        System.out.println("console after the order: " + after);
        assertThat(after)
            .containsEntry("outbox:" + orderSchema + ":rows", "2")
            .containsEntry("invoices:ISSUED", "2")
            .containsEntry("group:" + group + ":lag", "0");
        assertThat(after.keySet().stream().filter(k -> k.startsWith("audit:")))
            .as("one series, numbered 1..2")
            .hasSize(1)
            .allSatisfy(k -> assertThat(after.get(k)).isEqualTo("2"));

        // one OrderPlaced delivered again: billing skips it, and the page says so; the relay's
        // row names the slot it leads
        redeliverOne(bootstrap, ns.topicPrefix() + ".order");
        await().atMost(WITHIN).until(() -> system.billing().duplicates() == 1);
        String billingUrl = "service:http://127.0.0.1:" + system.billing().managementPort();
        String relayUrl = "service:http://127.0.0.1:" + system.relay().managementPort();
        WebDriver page = browser;
        Map<String, String> shown =
            await()
                .atMost(WITHIN)
                .pollInterval(Duration.ofMillis(500))
                .until(
                    () -> Chromium.figures(page),
                    f -> "1".equals(f.get(billingUrl + ":duplicates")));
        System.out.println(
            "console services: billing skipped "
                + shown.get(billingUrl + ":duplicates")
                + ", relay "
                + shown.get(relayUrl + ":role"));
        assertThat(shown.get(relayUrl + ":role"))
            .contains("leader of " + RelayConfig.defaultName(orderSchema))
            .contains("leader of " + RelayConfig.defaultName(billingSchema));
        Chromium.screenshot(browser, "console-after.png");
      } finally {
        if (browser != null) {
          browser.quit();
        }
      }
    } finally {
      ns.dropInactiveSlots(
          List.of(RelayConfig.defaultName(orderSchema), RelayConfig.defaultName(billingSchema)));
    }
  }

  /** The first record of {@code topic}, sent again with its key, value and headers. */
  private static void redeliverOne(String bootstrap, String topic) throws Exception {
    List<org.apache.kafka.common.TopicPartition> partitions = new java.util.ArrayList<>();
    for (int p = 0; p < 3; p++) {
      partitions.add(new org.apache.kafka.common.TopicPartition(topic, p));
    }
    var first = dev.ordinal.testkit.TopicReads.readToEnd(bootstrap, partitions, WITHIN).get(0);
    try (var producer = dev.ordinal.testkit.TestKafka.producer(bootstrap)) {
      producer
          .send(
              new org.apache.kafka.clients.producer.ProducerRecord<>(
                  topic, first.partition(), first.key(), first.value(), first.headers()))
          .get();
    }
  }

  private static void placeAndAwaitInvoice(LocalSystem system, DSLContext billingDb, int issued) {
    system.orders().orders().place(NewOrder.single("customer-" + issued, "EUR", BigDecimal.TEN));
    await()
        .atMost(WITHIN)
        .until(() -> billingDb.fetchCount(INVOICE, INVOICE.STATUS.eq("ISSUED")) == issued);
  }

  /**
   * Waits (bounded) until the page's figures equal what the servers hold, read anew on each try;
   * returns the page's figures then.
   */
  private static Map<String, String> awaitPageEqualsServers(
      WebDriver browser,
      String orders,
      DSLContext orderDb,
      DSLContext billingDb,
      LagReader lag,
      String group) {
    return await()
        .atMost(WITHIN)
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              Map<String, String> expected = new TreeMap<>();
              expected.put(
                  "outbox:" + orders + ":rows",
                  String.valueOf(orderDb.fetchCount(DSL.table(DSL.name(orders, "outbox")))));
              billingDb
                  .select(INVOICE.STATUS, DSL.count())
                  .from(INVOICE)
                  .groupBy(INVOICE.STATUS)
                  .forEach(r -> expected.put("invoices:" + r.value1(), String.valueOf(r.value2())));
              billingDb
                  .select(INVOICE.SERIES, DSL.max(INVOICE.NUMBER))
                  .from(INVOICE)
                  .groupBy(INVOICE.SERIES)
                  .forEach(r -> expected.put("audit:" + r.value1() + ":highest", "" + r.value2()));
              expected.put(
                  "group:" + group + ":lag",
                  String.valueOf(
                      lag.read(LagQuery.group(group)).group(group).orElseThrow().totalLag()));
              Map<String, String> page = Chromium.figures(browser);
              Map<String, String> shown = new TreeMap<>();
              expected.keySet().forEach(k -> shown.put(k, page.get(k)));
              return shown.equals(expected) ? shown : null;
            },
            shown -> shown != null);
  }
}
