package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.messaging.db.Tables.OUTBOX;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.contracts.EventType;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.messaging.inbox.InboxConsumer;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestKafka;
import dev.ordinal.testkit.TestNamespace;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The order's W3C trace context through billing (real PostgreSQL, real broker, no tracing SDK, so
 * each span carries its parent's context on as it is): an {@code OrderPlaced} record's {@code
 * traceparent} and {@code tracestate} headers are stored on the invoice, and the {@code
 * InvoiceIssued} row of billing's outbox carries both.
 */
@ExtendWith(OrdinalStackExtension.class)
class BillingTraceContextIT {
  static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  static final String TRACESTATE = "ordinal=t1,congo=x";

  @Test
  void theOrdersTraceparentAndTracestateReachTheInvoiceIssuedRow(TestNamespace ns)
      throws Exception {
    try (BillingFixture fx = new BillingFixture(ns, "traced");
        IntegratorSimulator integrator = BillingFixture.instantIntegrator()) {
      String topic = BillingFixture.topic(ns, "orders-traced", 1);
      UUID traced = UUID.randomUUID();
      UUID untraced = UUID.randomUUID();
      try (KafkaProducer<String, String> producer =
          TestKafka.producer(ns.stack().kafkaBootstrap())) {
        ProducerRecord<String, String> r =
            OrderMessages.placedRecord(topic, traced, "TR", "traced-1");
        r.headers().add(MessageHeaders.TRACEPARENT, MessageHeaders.encode(TRACEPARENT));
        r.headers().add(MessageHeaders.TRACESTATE, MessageHeaders.encode(TRACESTATE));
        producer.send(r).get();
        producer.send(OrderMessages.placedRecord(topic, untraced, "TR", "untraced-1")).get();
      }
      try (InboxConsumer consumer = fx.consumer(ns, ns.group("traced"), topic)) {
        await().atMost(Duration.ofSeconds(30)).until(() -> consumer.applied() == 2);
      }
      assertThat(invoiceTraceContext(fx, traced)).containsExactly(TRACEPARENT, TRACESTATE);
      assertThat(invoiceTraceContext(fx, untraced)).containsExactly(null, null);

      try (InvoiceIssuer issuer =
          fx.issuer(InvoiceIssuerConfig.defaults(), integrator.baseUri()).start()) {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    "ISSUED".equals(fx.invoiceStatus(traced))
                        && "ISSUED".equals(fx.invoiceStatus(untraced)));
      }
      assertThat(issuedTraceContext(fx, traced)).containsExactly(TRACEPARENT, TRACESTATE);
      assertThat(issuedTraceContext(fx, untraced)).containsExactly(null, null);
    }
  }

  private static List<Object> invoiceTraceContext(BillingFixture fx, UUID order) {
    return fx.dsl
        .select(INVOICE.TRACEPARENT, INVOICE.TRACESTATE)
        .from(INVOICE)
        .where(INVOICE.ORDER_ID.eq(order))
        .fetchSingle()
        .intoList();
  }

  private static List<Object> issuedTraceContext(BillingFixture fx, UUID order) {
    return fx.dsl
        .select(OUTBOX.TRACEPARENT, OUTBOX.TRACESTATE)
        .from(OUTBOX)
        .where(OUTBOX.AGGREGATE_ID.eq(order.toString()))
        .and(OUTBOX.EVENT_TYPE.eq(EventType.INVOICE_ISSUED.wireName()))
        .fetchSingle()
        .intoList();
  }
}
