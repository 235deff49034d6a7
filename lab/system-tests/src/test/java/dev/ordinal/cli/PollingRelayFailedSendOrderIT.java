package dev.ordinal.cli;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.PAYMENT;
import static dev.ordinal.messaging.db.Tables.INBOX;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.billing.BillingService;
import dev.ordinal.billing.HttpEInvoiceIntegrator;
import dev.ordinal.billing.HttpPaymentGateway;
import dev.ordinal.billing.InvoiceHandler;
import dev.ordinal.billing.InvoiceIssuer;
import dev.ordinal.billing.InvoiceIssuerConfig;
import dev.ordinal.billing.PaymentCollector;
import dev.ordinal.contracts.AggregateType;
import dev.ordinal.contracts.EventCodec;
import dev.ordinal.contracts.EventPayload;
import dev.ordinal.contracts.EventType;
import dev.ordinal.contracts.OrderCancelledV1;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.PaymentGatewaySimulator;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.messaging.inbox.InboxConsumer;
import dev.ordinal.messaging.inbox.InboxConsumerConfig;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.messaging.outbox.OutboxEvent;
import dev.ordinal.order.NewOrder;
import dev.ordinal.order.OrderEvents;
import dev.ordinal.relay.PollingRelay;
import dev.ordinal.relay.PollingRelayConfig;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The polling relay keeps each aggregate's order through a failed send: when the send of an {@code
 * OrderPlaced} fails, the order's {@code OrderCancelled} written after it is held back until the
 * placement is published (the relay before issue 34 sent the cancellation first, and the placement
 * after its lease). Billing applies the placement, then the cancellation, and neither numbers nor
 * charges the order.
 */
@ExtendWith(OrdinalStackExtension.class)
class PollingRelayFailedSendOrderIT {

  /** Sends the first {@code OrderPlaced} to a topic that cannot exist, so that send fails. */
  public static final class FailFirstPlacement implements ProducerInterceptor<byte[], byte[]> {
    static final AtomicInteger failed = new AtomicInteger();

    @Override
    public ProducerRecord<byte[], byte[]> onSend(ProducerRecord<byte[], byte[]> r) {
      Header type = r.headers().lastHeader(MessageHeaders.EVENT_TYPE);
      if (type != null
          && new String(type.value(), StandardCharsets.UTF_8)
              .equals(EventType.ORDER_PLACED.wireName())
          && failed.compareAndSet(0, 1)) {
        return new ProducerRecord<>(
            "no such topic!", r.partition(), r.timestamp(), r.key(), r.value(), r.headers());
      }
      return r;
    }

    @Override
    public void onAcknowledgement(RecordMetadata metadata, Exception exception) {}

    @Override
    public void close() {}

    @Override
    public void configure(Map<String, ?> configs) {}
  }

  @Test
  void aPlacementWhoseSendFailedStillGoesOutBeforeItsCancellationAndNothingIsCharged(
      TestNamespace ns) throws Exception {
    String bootstrap = ns.stack().kafkaBootstrap();
    DatabaseSettings db =
        new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword());
    String orders = ns.schema("orders");
    String billing = ns.schema("billing");
    String topic = ns.topicPrefix() + ".order";
    Topics.ensure(bootstrap, topic, 3);
    try (HikariDataSource orderPool = db.withSchema(orders).pool("ooo-orders", 2);
        HikariDataSource billingPool = db.withSchema(billing).pool("ooo-billing", 6);
        IntegratorSimulator integrator = IntegratorSimulator.instant();
        PaymentGatewaySimulator gateway = PaymentGatewaySimulator.instant()) {
      Migrations.applyOutbox(orderPool, orders);
      BillingService.migrate(billingPool, billing);
      DSLContext orderDb = DSL.using(orderPool, SQLDialect.POSTGRES);
      DSLContext billingDb = DSL.using(billingPool, SQLDialect.POSTGRES);

      UUID order = UUID.randomUUID();
      Outbox outbox = new Outbox(Clock.systemUTC());
      UUID placedId =
          append(
              orderDb,
              outbox,
              OrderEvents.placed(
                  order, NewOrder.single("c", "EUR", new BigDecimal("9.90")), Instant.now()));
      UUID cancelledId =
          append(orderDb, outbox, new OrderCancelledV1(order, "changed mind", Instant.now()));

      FailFirstPlacement.failed.set(0);
      PollingRelayConfig relayConfig =
          PollingRelayConfig.builder(db.withSchema(orders), bootstrap, ns.topicPrefix())
              .instanceId("ooo")
              .pollInterval(Duration.ofMillis(50))
              .batchSize(1)
              .lease(Duration.ofSeconds(4))
              .kafka(
                  Map.of(
                      ProducerConfig.INTERCEPTOR_CLASSES_CONFIG, FailFirstPlacement.class.getName(),
                      ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 2_000,
                      ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 1_000,
                      ProducerConfig.MAX_BLOCK_MS_CONFIG, 1_000))
              .build();
      Topics.ensure(bootstrap, topic, Topics.DEFAULT_PARTITIONS);
      try (PollingRelay relay = new PollingRelay(relayConfig, new SimpleMeterRegistry()).start();
          InboxConsumer consumer =
              new InboxConsumer(
                      InboxConsumerConfig.of(
                          BillingService.CONSUMER_NAME,
                          ns.group("billing"),
                          List.of(topic),
                          bootstrap),
                      billingDb,
                      new InvoiceHandler(Clock.systemUTC()),
                      new SimpleMeterRegistry(),
                      Clock.systemUTC())
                  .start()) {
        await().atMost(Duration.ofSeconds(60)).until(() -> consumer.applied() == 2);
        assertThat(FailFirstPlacement.failed.get()).as("the placement's first send failed").isOne();
        assertThat(relay.failures()).isPositive();
      }
      // the placement was applied first: it came earlier in the partition, despite its failed send
      Map<String, Long> offsets =
          billingDb
              .select(INBOX.MESSAGE_ID, INBOX.RECORD_OFFSET)
              .from(INBOX)
              .fetchMap(INBOX.MESSAGE_ID, INBOX.RECORD_OFFSET);
      long cancelAt = offsets.get(cancelledId.toString());
      long placeAt = offsets.get(placedId.toString());
      assertThat(placeAt).as("OrderPlaced before OrderCancelled").isLessThan(cancelAt);

      new InvoiceIssuer(
              InvoiceIssuerConfig.defaults().withWorkers(1),
              billingDb,
              new HttpEInvoiceIntegrator(integrator.baseUri(), Duration.ofSeconds(5)),
              new SimpleMeterRegistry(),
              Clock.systemUTC())
          .drain();
      new PaymentCollector(
              billingDb,
              new HttpPaymentGateway(gateway.baseUri(), Duration.ofSeconds(5)),
              1,
              new SimpleMeterRegistry())
          .drain();
      var invoice =
          billingDb
              .select(INVOICE.STATUS, INVOICE.NUMBER)
              .from(INVOICE)
              .where(INVOICE.ORDER_ID.eq(order))
              .fetchOne();
      assertThat(invoice.value1()).isEqualTo("CANCELLED");
      assertThat(invoice.value2()).as("no number").isNull();
      assertThat(
              billingDb
                  .select(PAYMENT.STATUS)
                  .from(PAYMENT)
                  .where(PAYMENT.ORDER_ID.eq(order))
                  .fetchOne(PAYMENT.STATUS))
          .isEqualTo("CANCELLED");
      assertThat(integrator.calls()).as("nothing sent to the integrator").isZero();
      assertThat(gateway.chargeCalls()).as("no charge attempted").isZero();
    }
  }

  /** {@code event} in the outbox of order-service's schema, as order-service writes it. */
  private static UUID append(DSLContext orderDb, Outbox outbox, EventPayload event) {
    return orderDb.transactionResult(
        c ->
            outbox.append(
                c.dsl(),
                new OutboxEvent(
                    AggregateType.ORDER.wireName(),
                    event.orderId().toString(),
                    event.type().wireName(),
                    EventCodec.toJson(event))));
  }
}
