package dev.ordinal.billing;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.Preflight;
import dev.ordinal.messaging.Servers;
import dev.ordinal.messaging.inbox.InboxConsumer;
import dev.ordinal.messaging.inbox.InboxConsumerConfig;
import dev.ordinal.messaging.inbox.InboxRetention;
import dev.ordinal.messaging.inbox.InboxRetentionConfig;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.messaging.outbox.OutboxRetention;
import dev.ordinal.runtime.ServiceAppBase;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * One billing instance, the only place billing is put together: {@link #start()} waits for
 * PostgreSQL and Kafka, creates the order topics, refuses an inbox retention that does not cover a
 * replay, migrates billing's schema, then runs seven supervised loops — {@code inbox-consumer}
 * (orders into drafts and charges, interactive first), {@code invoice-issuer} (numbers and sends
 * invoices, repairs unknown outcomes), {@code invoice-reconciliation} (asks the integrator about
 * numbers it should not hold), {@code payment-collector}, {@code payment-reconciliation} (asks the
 * gateway about charges it should not hold), {@code inbox-retention} and {@code outbox-retention}
 * (billing's {@code InvoiceIssued} rows, once the relay of its schema has long read them from the
 * WAL) — with health and metrics on the management port. Several instances with one group share the
 * work.
 *
 * <p>The CLI ({@code ./ordinal billing}), the demo's child processes, {@code up}, the benchmarks
 * and the tests start billing through this class.
 */
public final class BillingApp extends ServiceAppBase {
  public static final String SERVICE = "billing";
  public static final String CONSUMER_LOOP = "inbox-consumer";
  public static final String ISSUER_LOOP = "invoice-issuer";
  public static final String RECONCILE_LOOP = "invoice-reconciliation";
  public static final String PAYMENTS_LOOP = "payment-collector";
  public static final String PAYMENT_RECONCILE_LOOP = "payment-reconciliation";
  public static final String RETENTION_LOOP = "inbox-retention";
  public static final String OUTBOX_RETENTION_LOOP = "outbox-retention";

  /** How often due payments are looked for. */
  static final Duration PAYMENT_INTERVAL = Duration.ofMillis(100);

  /** How long a loop waits for a database connection before it fails and backs off. */
  static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(5);

  private final BillingSettings settings;
  private final EInvoiceIntegrator integrator;
  private final PaymentGateway gateway;
  private InboxConsumer consumer;
  private InvoiceIssuer issuer;
  private DSLContext dsl;

  /**
   * Opens the management port (ready is 503 until {@link #start()} is done); starts nothing else.
   *
   * @throws IllegalStateException when the management port is taken
   */
  public BillingApp(BillingSettings settings) {
    this(
        settings,
        new HttpEInvoiceIntegrator(settings.integrator(), HttpEInvoiceIntegrator.DEFAULT_TIMEOUT),
        new HttpPaymentGateway(settings.gateway(), HttpPaymentGateway.DEFAULT_TIMEOUT),
        Clock.systemUTC());
  }

  /**
   * With other clients of the integrator and the gateway (a wrapper that measures calls, a
   * simulator in the same JVM).
   */
  public BillingApp(
      BillingSettings settings,
      EInvoiceIntegrator integrator,
      PaymentGateway gateway,
      Clock clock) {
    super(SERVICE, settings.instanceId(), settings.management(), clock);
    this.settings = settings;
    this.integrator = integrator;
    this.gateway = gateway;
  }

  /** Starts with {@link #BillingApp(BillingSettings)}; closes what it opened when it fails. */
  public static BillingApp start(BillingSettings settings) {
    return startOrClose(new BillingApp(settings));
  }

  /**
   * Waits for the servers (one log line every few seconds naming the setting), creates the topics,
   * checks the inbox retention against them, migrates, then starts the loops. Blocks until done.
   *
   * @throws dev.ordinal.messaging.ConfigurationException when the configuration is wrong (a refused
   *     login, an inbox retention shorter than the replay window or a topic's retention without
   *     {@code allowShortRetention}); one sentence, nothing started
   * @throws dev.ordinal.runtime.ServiceStoppedException when {@link #requestStop()} came first
   */
  @Override
  public synchronized BillingApp start() {
    Clock clock = runtime.clock();
    runtime.awaitServer(Servers.postgres(settings.db(), false));
    KafkaClients kafka = kafka();
    runtime.awaitServer(Servers.kafka(kafka));
    List<String> topics = List.of(settings.interactiveTopic(), settings.bulkTopic());
    Map<String, Duration> topicRetentions =
        runtime.retrying(
            "creating topics " + topics,
            Servers::isUnavailable,
            () -> {
              for (String topic : topics) {
                Topics.ensure(kafka, topic, settings.topicPartitions());
              }
              try (Admin admin = kafka.admin("retention-check", Map.of())) {
                return InboxRetention.topicRetentions(admin, topics, Preflight.DEFAULT_TIMEOUT);
              }
            });
    InboxRetentionConfig retentionConfig = settings.inboxRetentionConfig();
    InboxRetention.checkCoversReplay(retentionConfig, topicRetentions);
    // only now is anything written: a refused retention leaves the database as it was
    HikariDataSource pool =
        keepMigrated(
            settings
                .db()
                .withSchema(settings.schema())
                .servicePool(
                    "billing", settings.poolSize(), CONNECTION_TIMEOUT, runtime.registry()),
            settings.schema(),
            Servers::isUnavailable,
            p -> BillingService.migrate(p, settings.schema()));
    dsl = DSL.using(pool, SQLDialect.POSTGRES);

    consumer =
        runtime.keep(
            new InboxConsumer(
                    consumerConfig(topics),
                    dsl,
                    new InvoiceHandler(clock),
                    runtime.registry(),
                    clock)
                .start(runtime.supervisor(), CONSUMER_LOOP));
    InvoiceIssuerConfig issuerConfig =
        settings.issuerConfig().withBackoff(Duration.ofMillis(50), Duration.ofSeconds(1));
    issuer =
        runtime.keep(
            new InvoiceIssuer(issuerConfig, dsl, integrator, runtime.registry(), clock)
                .start(runtime.supervisor(), ISSUER_LOOP));
    runtime.keep(
        new InvoiceReconciliation(
                dsl, integrator, issuerConfig.inFlightWindow(), runtime.registry())
            .start(settings.reconcileInterval(), runtime.supervisor(), RECONCILE_LOOP));
    PaymentCollector collector =
        new PaymentCollector(
            dsl, gateway, settings.issuerWorkers(), runtime.registry(), settings.paymentLease());
    runtime.keep(collector.start(PAYMENT_INTERVAL, runtime.supervisor(), PAYMENTS_LOOP));
    runtime.keep(
        new PaymentReconciliation(dsl, gateway, collector.inFlightWindow(), runtime.registry())
            .start(settings.reconcileInterval(), runtime.supervisor(), PAYMENT_RECONCILE_LOOP));
    runtime.keep(
        new InboxRetention(retentionConfig, dsl, runtime.registry(), clock)
            .start(topicRetentions, runtime.supervisor(), RETENTION_LOOP));
    runtime.keep(
        new OutboxRetention(settings.outboxRetentionConfig(), dsl, runtime.registry(), clock)
            .start(runtime.supervisor(), OUTBOX_RETENTION_LOOP));
    runtime.started();
    return this;
  }

  /** The Kafka clients of this instance: client ids {@code ordinal-billing-<instance>-...}. */
  private KafkaClients kafka() {
    return settings
        .kafkaClients()
        .forService(SERVICE, settings.instanceId())
        .withMetrics(runtime.registry());
  }

  private InboxConsumerConfig consumerConfig(List<String> topics) {
    return InboxConsumerConfig.builder(
            BillingService.CONSUMER_NAME, settings.group(), topics, kafka())
        .concurrency(settings.concurrency())
        .headers(settings.headers())
        .priority(List.of(settings.interactiveTopic()))
        .kafka(
            Map.of(
                ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
                (int) settings.sessionTimeout().toMillis(),
                ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG,
                (int) Math.min(3000, settings.sessionTimeout().toMillis() / 3)))
        .build();
  }

  public BillingSettings settings() {
    return settings;
  }

  /** Billing's database, once started (audits and tests). */
  public DSLContext dsl() {
    return dsl;
  }

  /** Messages applied since start (0 before). */
  public long applied() {
    return consumer == null ? 0 : consumer.applied();
  }

  /** Redeliveries skipped by the inbox since start. */
  public long duplicates() {
    return consumer == null ? 0 : consumer.duplicates();
  }

  /** Invoices issued by this instance since start. */
  public long issued() {
    return issuer == null ? 0 : issuer.issued();
  }

  /** Waits until the consumer has its partitions (tests and the demo). */
  public boolean awaitAssignment(Duration timeout) throws InterruptedException {
    return consumer != null && consumer.awaitAssignment(timeout);
  }
}
