package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.INVOICE_DISCREPANCY;
import static dev.ordinal.messaging.db.Tables.INBOX;
import static dev.ordinal.messaging.db.Tables.OUTBOX;
import static dev.ordinal.testkit.TopicReads.onlyRecord;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.contracts.AggregateType;
import dev.ordinal.contracts.EventType;
import dev.ordinal.lab.demo.LocalSystem;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.order.NewOrder;
import dev.ordinal.order.OrderServiceApp;
import dev.ordinal.order.PlacedOrder;
import dev.ordinal.relay.RelayApp;
import dev.ordinal.relay.RelayConfig;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jooq.DSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * One order through the whole path, each service started through its runtime as deployed: outbox →
 * WAL → Debezium → Kafka → inbox → invoice → integrator → {@code InvoiceIssued} on billing's outbox
 * → its own relay → {@code <prefix>.invoice}; and the instance's periodic reconciliation finds a
 * voided number the integrator holds.
 */
@ExtendWith(OrdinalStackExtension.class)
class EndToEndIT {
  /** How long a probe waits for the one record a topic holds. */
  private static final Duration PROBE_WITHIN = Duration.ofSeconds(30);

  @Test
  void oneOrderBecomesOneInvoiceAndARedeliveryChangesNothing(TestNamespace ns, @TempDir Path dir)
      throws Exception {
    DatabaseSettings db =
        new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword());
    String orderSchema = ns.schema("orders");
    String billingSchema = ns.schema("billing");
    String topic = ns.topic("order");
    String bootstrap = ns.stack().kafkaBootstrap();

    String invoiceTopic = AggregateType.INVOICE.topic(ns.topicPrefix());
    try (LocalSystem system =
        LocalSystem.forTests(db, bootstrap, orderSchema)
            .billing(
                b ->
                    b.schema(billingSchema)
                        .topicPrefix(ns.topicPrefix())
                        .group(ns.group("billing"))
                        .reconcileInterval(Duration.ofSeconds(1)))
            .start()) {
      OrderServiceApp orders = system.orders();
      BillingApp billing = system.billing();
      RelayApp relay = system.relay();
      IntegratorSimulator integrator = system.integrator();
      for (var r : relay.relays()) {
        r.awaitStreaming(Duration.ofSeconds(60));
      }
      DSLContext orderDb = orders.orders().dsl();
      DSLContext billingDb = billing.dsl();

      PlacedOrder placed =
          orders.orders().place(NewOrder.single("customer-1", "EUR", new BigDecimal("99.90")));

      await().atMost(Duration.ofSeconds(30)).until(() -> billingDb.fetchCount(INVOICE) == 1);

      // one outbox row, whose id is the message id
      assertThat(orderDb.fetch(OUTBOX))
          .singleElement()
          .satisfies(row -> assertThat(row.getId()).isEqualTo(placed.messageId()));

      // one Kafka record, keyed by the order id, carrying the message id
      ConsumerRecord<String, String> record =
          onlyRecord(bootstrap, topic, ns.group("probe"), PROBE_WITHIN);
      assertThat(record.key()).isEqualTo(placed.orderId().toString());
      assertThat(MessageHeaders.get(record.headers(), MessageHeaders.MESSAGE_ID))
          .contains(placed.messageId().toString());
      assertThat(MessageHeaders.get(record.headers(), MessageHeaders.EVENT_TYPE))
          .contains(EventType.ORDER_PLACED.wireName());

      // one inbox row, one invoice
      assertThat(billingDb.fetch(INBOX))
          .singleElement()
          .satisfies(
              row -> {
                assertThat(row.getMessageId()).isEqualTo(placed.messageId().toString());
                assertThat(row.getConsumer()).isEqualTo(BillingService.CONSUMER_NAME);
              });
      assertThat(billingDb.fetch(INVOICE))
          .singleElement()
          .satisfies(
              row -> {
                assertThat(row.getOrderId()).isEqualTo(placed.orderId());
                assertThat(row.getTotal()).isEqualByComparingTo("99.90");
              });
      assertThat(billing.applied()).isEqualTo(1);
      assertThat(billing.duplicates()).isZero();

      // the invoice is issued, and billing's own event reaches its topic through the relay of
      // billing's outbox
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> billingDb.fetchCount(INVOICE, INVOICE.STATUS.eq("ISSUED")) == 1);
      ConsumerRecord<String, String> issued =
          onlyRecord(bootstrap, invoiceTopic, ns.group("probe-invoice"), PROBE_WITHIN);
      assertThat(issued.key()).isEqualTo(placed.orderId().toString());
      assertThat(MessageHeaders.get(issued.headers(), MessageHeaders.EVENT_TYPE))
          .contains(EventType.INVOICE_ISSUED.wireName());

      // the same record delivered again, with the same message id header
      try (KafkaProducer<String, String> producer =
          new KafkaProducer<>(
              Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
              new StringSerializer(),
              new StringSerializer())) {
        producer
            .send(new ProducerRecord<>(topic, null, record.key(), record.value(), record.headers()))
            .get();
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> billing.duplicates() == 1);

      assertThat(billingDb.fetchCount(INBOX)).isEqualTo(1);
      assertThat(billingDb.fetchCount(INVOICE)).isEqualTo(1);
      assertThat(billing.applied()).isEqualTo(1);

      // the running instance's reconciliation finds a voided number the integrator holds
      UUID voidedOrder = UUID.randomUUID();
      long voided =
          billingDb
              .insertInto(INVOICE)
              .set(INVOICE.ORDER_ID, voidedOrder)
              .set(INVOICE.CUSTOMER_ID, "c")
              .set(INVOICE.CURRENCY, "EUR")
              .set(INVOICE.TOTAL, new BigDecimal("1.00"))
              .set(INVOICE.SERIES, "E2E-VOID")
              .set(INVOICE.NUMBER, 1L)
              .set(INVOICE.STATUS, "VOIDED")
              .set(INVOICE.VOID_REASON, "order cancelled: test")
              .set(INVOICE.SOURCE_MESSAGE_ID, "e2e-voided")
              .returning(INVOICE.ID)
              .fetchOne()
              .getId();
      new HttpEInvoiceIntegrator(integrator.baseUri(), Duration.ofSeconds(5))
          .submit(
              new EInvoiceIntegrator.Submission(
                  "E2E-VOID",
                  1,
                  InvoiceNumbering.invoiceId(voidedOrder),
                  voidedOrder,
                  new BigDecimal("1.00"),
                  "EUR"));
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  billingDb.fetchCount(
                          INVOICE_DISCREPANCY, INVOICE_DISCREPANCY.INVOICE_ID.eq(voided))
                      == 1);
    } finally {
      ns.dropInactiveSlots(
          List.of(RelayConfig.defaultName(orderSchema), RelayConfig.defaultName(billingSchema)));
    }
  }
}
