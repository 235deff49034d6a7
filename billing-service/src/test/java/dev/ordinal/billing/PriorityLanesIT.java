package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.contracts.Channel;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.messaging.inbox.InboxConsumer;
import dev.ordinal.messaging.inbox.InboxConsumerConfig;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** With 4,000 bulk orders queued, an interactive order is invoiced in under 2 s. */
@ExtendWith(OrdinalStackExtension.class)
class PriorityLanesIT {
  static final int BULK = 4_000;

  @Test
  void anInteractiveOrderJumpsAFourThousandOrderBulkBacklog(TestNamespace ns) throws Exception {
    String interactive = BillingFixture.topic(ns, "order", 3);
    String bulk = BillingFixture.topic(ns, "order-bulk", 3);
    String bootstrap = ns.stack().kafkaBootstrap();
    try (KafkaProducer<String, String> producer = BillingFixture.batchingProducer(bootstrap);
        BillingFixture fx = new BillingFixture(ns, "lanes");
        IntegratorSimulator integrator =
            BillingFixture.integrator(Duration.ofMillis(5), Duration.ofMillis(20))) {
      for (int i = 0; i < BULK; i++) {
        producer.send(placed(bulk, UUID.randomUUID(), Channel.BULK));
      }
      producer.flush();

      try (InboxConsumer billing =
              BillingFixture.start(
                  InboxConsumerConfig.of(
                          BillingService.CONSUMER_NAME,
                          ns.group("billing"),
                          List.of(interactive, bulk),
                          bootstrap)
                      .withConcurrency(4)
                      .withPriority(List.of(interactive)),
                  fx.dsl,
                  new SimpleMeterRegistry(),
                  Clock.systemUTC());
          InvoiceIssuer issuer =
              fx.issuer(InvoiceIssuerConfig.defaults().withWorkers(4), integrator.baseUri())
                  .start()) {
        // the backlog is being worked: some bulk invoices issued, most still waiting
        await().atMost(Duration.ofSeconds(60)).until(() -> issuer.issued() >= 100);

        UUID person = UUID.randomUUID();
        long t0 = System.nanoTime();
        java.time.Instant sentAt = java.time.Instant.now();
        System.out.printf(
            "priority lanes: at send, billing applied %d records, %d drafts exist%n",
            billing.applied(), fx.dsl.fetchCount(INVOICE));
        producer.send(placed(interactive, person, Channel.INTERACTIVE)).get();
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(20))
            .until(() -> "ISSUED".equals(fx.invoiceStatus(person)));
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        int bulkIssued =
            fx.dsl.fetchCount(INVOICE, INVOICE.CHANNEL.eq("bulk").and(INVOICE.STATUS.eq("ISSUED")));
        var inv = fx.dsl.selectFrom(INVOICE).where(INVOICE.ORDER_ID.eq(person)).fetchOne();
        System.out.printf(
            "priority lanes: interactive order issued in %d ms with %d of %d bulk invoices issued"
                + " (draft +%d ms, reserved +%d ms, issued +%d ms after send)%n",
            took.toMillis(),
            bulkIssued,
            BULK,
            Duration.between(sentAt, inv.getCreatedAt().toInstant()).toMillis(),
            Duration.between(sentAt, inv.getReservedAt().toInstant()).toMillis(),
            Duration.between(sentAt, inv.getIssuedAt().toInstant()).toMillis());

        assertThat(bulkIssued).as("the bulk backlog was still there").isLessThan(BULK / 2);
        assertThat(took).as("commit to Kafka -> invoice issued").isLessThan(Duration.ofSeconds(2));
      }
    }
  }

  private static ProducerRecord<String, String> placed(String topic, UUID order, Channel channel) {
    return OrderMessages.record(
        topic,
        OrderMessages.placedEvent(order, null, channel, "12.50"),
        UUID.randomUUID().toString());
  }
}
