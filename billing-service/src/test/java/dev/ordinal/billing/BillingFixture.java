package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.PAYMENT;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.testkit.TestNamespace;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jooq.types.DayToSecond;

/** Billing's schema in the test class's namespace, and a way to make draft invoices. */
final class BillingFixture implements AutoCloseable {
  final HikariDataSource pool;
  final DSLContext dsl;

  BillingFixture(TestNamespace ns, String part) {
    String schema = ns.schema(part);
    pool = pool(ns, schema, "billing-" + part, 20);
    BillingService.migrate(pool, schema);
    dsl = DSL.using(pool, SQLDialect.POSTGRES);
  }

  /** A pool of {@code size} connections named {@code name} on {@code schema} of the stack. */
  static HikariDataSource pool(TestNamespace ns, String schema, String name, int size) {
    return new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword())
        .withSchema(schema)
        .pool(name, size);
  }

  private final InvoiceHandler handler = new InvoiceHandler(java.time.Clock.systemUTC());

  /**
   * A started inbox consumer of {@code config}'s topics with billing's handler, the topics created
   * first when missing, so the consumer sees them at once.
   */
  static dev.ordinal.messaging.inbox.InboxConsumer start(
      dev.ordinal.messaging.inbox.InboxConsumerConfig config,
      DSLContext dsl,
      io.micrometer.core.instrument.MeterRegistry registry,
      java.time.Clock clock) {
    for (String topic : config.topics()) {
      dev.ordinal.messaging.kafka.Topics.ensure(
          config.bootstrapServers(), topic, dev.ordinal.messaging.kafka.Topics.DEFAULT_PARTITIONS);
    }
    return new dev.ordinal.messaging.inbox.InboxConsumer(
            config, dsl, new InvoiceHandler(clock), registry, clock)
        .start();
  }

  /** Billing's inbox consumer on {@code topic} in {@code group}, four keys at a time, started. */
  dev.ordinal.messaging.inbox.InboxConsumer consumer(TestNamespace ns, String group, String topic) {
    return start(
        dev.ordinal.messaging.inbox.InboxConsumerConfig.of(
                BillingService.CONSUMER_NAME,
                group,
                java.util.List.of(topic),
                ns.stack().kafkaBootstrap())
            .withConcurrency(4),
        dsl,
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry(),
        java.time.Clock.systemUTC());
  }

  /** An integrator simulator that answers at once and never fails, started on a free port. */
  static dev.ordinal.lab.sim.IntegratorSimulator instantIntegrator() {
    return integrator(Duration.ZERO, Duration.ZERO);
  }

  /**
   * An integrator simulator that never fails and answers after {@code min} to {@code max}, started
   * on a free port.
   */
  static dev.ordinal.lab.sim.IntegratorSimulator integrator(Duration min, Duration max) {
    return new dev.ordinal.lab.sim.IntegratorSimulator(
            0,
            dev.ordinal.lab.sim.IntegratorFaults.defaults().withoutFaults().withLatency(min, max))
        .start();
  }

  /**
   * An integrator simulator with {@code faults} drawn from {@code random} on the system clock,
   * started on a free port.
   */
  static dev.ordinal.lab.sim.IntegratorSimulator integrator(
      dev.ordinal.lab.sim.IntegratorFaults faults, java.util.random.RandomGenerator random) {
    return new dev.ordinal.lab.sim.IntegratorSimulator(
            0, faults, random, java.time.Clock.systemUTC())
        .start();
  }

  /**
   * A payment gateway simulator with its default faults that answers after {@code min} to {@code
   * max}, started on a free port.
   */
  static dev.ordinal.lab.sim.PaymentGatewaySimulator gateway(Duration min, Duration max) {
    return new dev.ordinal.lab.sim.PaymentGatewaySimulator(
            0, dev.ordinal.lab.sim.PaymentGatewayFaults.defaults().withLatency(min, max))
        .start();
  }

  /**
   * A producer to {@code bootstrap} that lingers 5 ms, so that records sent in a loop go in
   * batches.
   */
  static org.apache.kafka.clients.producer.KafkaProducer<String, String> batchingProducer(
      String bootstrap) {
    return new org.apache.kafka.clients.producer.KafkaProducer<>(
        java.util.Map.<String, Object>of(
            org.apache.kafka.clients.producer.ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            org.apache.kafka.clients.producer.ProducerConfig.LINGER_MS_CONFIG,
            5),
        new org.apache.kafka.common.serialization.StringSerializer(),
        new org.apache.kafka.common.serialization.StringSerializer());
  }

  /** {@code ns}'s topic {@code name}, created with {@code partitions} partitions if missing. */
  static String topic(TestNamespace ns, String name, int partitions) {
    String topic = ns.topic(name);
    dev.ordinal.messaging.kafka.Topics.ensure(ns.stack().kafkaBootstrap(), topic, partitions);
    return topic;
  }

  /** The sum of {@code group}'s committed offsets on {@code topic}'s partitions. */
  static long committed(org.apache.kafka.clients.admin.Admin admin, String group, String topic)
      throws Exception {
    return admin
        .listConsumerGroupOffsets(group)
        .partitionsToOffsetAndMetadata()
        .get()
        .entrySet()
        .stream()
        .filter(e -> e.getKey().topic().equals(topic) && e.getValue() != null)
        .mapToLong(e -> e.getValue().offset())
        .sum();
  }

  /** A payment collector on this schema with the HTTP gateway at {@code gateway} (5 s timeout). */
  PaymentCollector payments(java.net.URI gateway, int workers) {
    return new PaymentCollector(
        dsl,
        new HttpPaymentGateway(gateway, Duration.ofSeconds(5)),
        workers,
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
  }

  /** The status of {@code order}'s payment, null without one. */
  String paymentStatus(UUID order) {
    return payment(order, PAYMENT.STATUS);
  }

  /** {@code column} of {@code order}'s payment, null without one. */
  <T> T payment(UUID order, org.jooq.TableField<?, T> column) {
    return dsl.select(column).from(PAYMENT).where(PAYMENT.ORDER_ID.eq(order)).fetchOne(column);
  }

  /** The status of {@code order}'s invoice, null without one. */
  String invoiceStatus(UUID order) {
    return dsl.select(INVOICE.STATUS)
        .from(INVOICE)
        .where(INVOICE.ORDER_ID.eq(order))
        .fetchOne(INVOICE.STATUS);
  }

  /** An invoice issuer on this schema with {@code integrator}, the system clock, own metrics. */
  InvoiceIssuer issuer(InvoiceIssuerConfig config, EInvoiceIntegrator integrator) {
    return new InvoiceIssuer(
        config,
        dsl,
        integrator,
        new io.micrometer.core.instrument.simple.SimpleMeterRegistry(),
        java.time.Clock.systemUTC());
  }

  /** The same with the HTTP integrator at {@code integrator} (5 s timeout). */
  InvoiceIssuer issuer(InvoiceIssuerConfig config, java.net.URI integrator) {
    return issuer(config, new HttpEInvoiceIntegrator(integrator, Duration.ofSeconds(5)));
  }

  /** Applies {@code message} with billing's handler, in a transaction of its own. */
  void apply(dev.ordinal.messaging.inbox.Envelope message) {
    dsl.transaction(c -> handler.handle(c.dsl(), message));
  }

  /** Places a new order (20.00 EUR) in {@code series}; returns its id. */
  UUID place(String series) {
    UUID order = UUID.randomUUID();
    apply(OrderMessages.placed(order, series));
    return order;
  }

  /** Cancels {@code order} ("changed mind"). */
  void cancel(UUID order) {
    apply(OrderMessages.cancelled(order));
  }

  /** {@code n} drafts in {@code series}; returns their row ids in creation order. */
  List<Long> drafts(String series, int n) {
    List<Long> ids = new ArrayList<>();
    OffsetDateTime now = OffsetDateTime.now();
    for (int i = 0; i < n; i++) {
      ids.add(
          dsl.insertInto(INVOICE)
              .set(INVOICE.ORDER_ID, UUID.randomUUID())
              .set(INVOICE.CUSTOMER_ID, "c-" + i)
              .set(INVOICE.CURRENCY, "EUR")
              .set(INVOICE.TOTAL, new BigDecimal("10.00"))
              .set(INVOICE.SERIES, series)
              .set(INVOICE.STATUS, InvoiceStatus.DRAFT.name())
              .set(INVOICE.SOURCE_MESSAGE_ID, "test-" + UUID.randomUUID())
              .set(INVOICE.CREATED_AT, now.plusNanos(i * 1000L))
              .returning(INVOICE.ID)
              .fetchOne()
              .getId());
    }
    return ids;
  }

  /**
   * Lets {@code d} pass for the invoice and payment queues, on the database's clock they run by:
   * every due time and every time a submission began move {@code d} into the past (the database's
   * clock itself cannot be moved).
   */
  void passTime(Duration d) {
    DayToSecond back = DayToSecond.valueOf(d);
    dsl.update(INVOICE)
        .set(INVOICE.NEXT_ATTEMPT_AT, INVOICE.NEXT_ATTEMPT_AT.minus(DSL.val(back)))
        .set(INVOICE.SENT_AT, INVOICE.SENT_AT.minus(DSL.val(back)))
        .execute();
    dsl.update(PAYMENT)
        .set(PAYMENT.NEXT_ATTEMPT_AT, PAYMENT.NEXT_ATTEMPT_AT.minus(DSL.val(back)))
        .set(PAYMENT.CHARGE_SENT_AT, PAYMENT.CHARGE_SENT_AT.minus(DSL.val(back)))
        .execute();
  }

  @Override
  public void close() {
    pool.close();
  }
}
