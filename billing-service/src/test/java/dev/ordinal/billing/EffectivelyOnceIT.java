package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.PAYMENT;
import static dev.ordinal.messaging.db.Tables.INBOX;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.PaymentGatewaySimulator;
import dev.ordinal.messaging.inbox.InboxConsumer;
import dev.ordinal.messaging.inbox.InboxConsumerConfig;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every message of a 1,000-order stream delivered twice, read by two consumer instances at
 * concurrency 4 each (so copies are applied concurrently), plus 100 orders re-published under new
 * message ids: exactly 1,000 invoices numbered 1..1,000, 1,000 charges, duplicates counted.
 */
@ExtendWith(OrdinalStackExtension.class)
class EffectivelyOnceIT {
  static final int ORDERS = 1_000;
  static final int REPUBLISHED = 100;

  @Test
  void thousandOrdersDeliveredTwiceConcurrentlyGiveThousandInvoicesChargesAndNumbers(
      TestNamespace ns) throws Exception {
    String topic = BillingFixture.topic(ns, "order", 3);
    String bootstrap = ns.stack().kafkaBootstrap();
    List<UUID> orders = new ArrayList<>();
    try (KafkaProducer<String, String> producer = BillingFixture.batchingProducer(bootstrap)) {
      for (int i = 0; i < ORDERS; i++) {
        orders.add(UUID.randomUUID());
      }
      for (int copy = 0; copy < 2; copy++) {
        for (int i = 0; i < ORDERS; i++) {
          producer.send(placed(topic, orders.get(i), "msg-" + i));
        }
      }
      for (int i = 0; i < REPUBLISHED; i++) {
        producer.send(placed(topic, orders.get(i * 7), "republished-" + i));
      }
      producer.flush();
    }

    try (BillingFixture fx = new BillingFixture(ns, "once");
        IntegratorSimulator integrator =
            BillingFixture.integrator(Duration.ZERO, Duration.ofMillis(2));
        PaymentGatewaySimulator gateway =
            BillingFixture.gateway(Duration.ZERO, Duration.ofMillis(2))) {
      InboxConsumer a = consumer(ns, fx, "a");
      InboxConsumer b = consumer(ns, fx, "b");
      int perConsumer = 2 * ORDERS + REPUBLISHED;
      try (a;
          b) {
        await()
            .atMost(Duration.ofSeconds(120))
            .until(
                () ->
                    a.applied() + a.duplicates() == perConsumer
                        && b.applied() + b.duplicates() == perConsumer);
      }
      assertThat(a.applied() + b.applied())
          .as("each message id applied once")
          .isEqualTo(ORDERS + REPUBLISHED);
      assertThat(a.duplicates() + b.duplicates())
          .as("duplicates counted")
          .isEqualTo(2L * perConsumer - ORDERS - REPUBLISHED);
      assertThat(fx.dsl.fetchCount(INBOX, INBOX.CONSUMER.eq(BillingService.CONSUMER_NAME)))
          .isEqualTo(ORDERS + REPUBLISHED);
      assertThat(fx.dsl.fetchCount(INVOICE)).as("one invoice per order").isEqualTo(ORDERS);
      assertThat(fx.dsl.fetchCount(PAYMENT)).as("one charge per order").isEqualTo(ORDERS);

      InvoiceIssuer issuer =
          fx.issuer(InvoiceIssuerConfig.defaults().withWorkers(4), integrator.baseUri());
      PaymentCollector payments = fx.payments(gateway.baseUri(), 4);
      // a second round of each must find nothing to do
      issuer.drain();
      payments.drain();
      assertThat(issuer.drain()).isZero();
      assertThat(payments.drain()).isZero();

      GapAudit.SeriesReport audit = new GapAudit(fx.dsl).run("F1").get(0);
      assertThat(audit.highest()).isEqualTo(ORDERS);
      assertThat(audit.clean()).as("numbers exactly 1..1000").isTrue();
      assertThat(audit.byStatus()).isEqualTo(Map.of(InvoiceStatus.ISSUED, ORDERS));
      assertThat(integrator.acceptedCount()).isEqualTo(ORDERS);
      assertThat(integrator.duplicateAttempts()).isZero();
      assertThat(fx.dsl.fetchCount(PAYMENT, PAYMENT.STATUS.eq("CAPTURED"))).isEqualTo(ORDERS);
      assertThat(gateway.charges()).as("charges at the gateway").isEqualTo(ORDERS);
    }
  }

  private static InboxConsumer consumer(TestNamespace ns, BillingFixture fx, String instance) {
    return BillingFixture.start(
        InboxConsumerConfig.of(
                BillingService.CONSUMER_NAME,
                ns.group("billing-" + instance),
                List.of(ns.topic("order")),
                ns.stack().kafkaBootstrap())
            .withConcurrency(4),
        fx.dsl,
        new SimpleMeterRegistry(),
        Clock.systemUTC());
  }

  private static ProducerRecord<String, String> placed(String topic, UUID order, String messageId) {
    return OrderMessages.placedRecord(topic, order, "F1", messageId);
  }
}
