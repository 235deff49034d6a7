package dev.ordinal.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.billing.BillingService;
import dev.ordinal.billing.HttpEInvoiceIntegrator;
import dev.ordinal.billing.HttpPaymentGateway;
import dev.ordinal.billing.InvoiceIssuer;
import dev.ordinal.billing.InvoiceIssuerConfig;
import dev.ordinal.billing.PaymentCollector;
import dev.ordinal.infra.Stack;
import dev.ordinal.infra.StackConfig;
import dev.ordinal.infra.StackMode;
import dev.ordinal.infra.sim.IntegratorFaults;
import dev.ordinal.infra.sim.IntegratorSimulator;
import dev.ordinal.infra.sim.PaymentGatewayFaults;
import dev.ordinal.infra.sim.PaymentGatewaySimulator;
import dev.ordinal.messaging.DatabaseSettings;
import dev.ordinal.messaging.InboxConsumer;
import dev.ordinal.messaging.InboxConsumerConfig;
import dev.ordinal.messaging.Preflight;
import dev.ordinal.order.OrderEvents;
import dev.ordinal.order.OrderHttpServer;
import dev.ordinal.order.OrderService;
import dev.ordinal.relay.OutboxRelay;
import dev.ordinal.relay.RelayConfig;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The whole system on one stack, wired the way the services wire it: order-service (and, when
 * asked, its HTTP API), the CDC relay, billing's inbox consumer with priority lanes, the integrator
 * and payment gateway simulators, the invoice issuer and the payment collector. Used by {@code
 * demo} and {@code up}; closing it stops everything it started, in reverse order.
 */
final class LocalSystem implements AutoCloseable {
  static final String TOPIC_PREFIX = "ordinal";
  static final String ORDER_SCHEMA = "orders";
  static final String BILLING_SCHEMA = "billing";
  static final String SLOT = "ordinal_demo";

  /** Fixed ports, or 0 for free ones; {@code orderApi} -1 for no HTTP API. */
  record Ports(int integrator, int gateway, int orderApi) {
    static Ports free() {
      return new Ports(0, 0, -1);
    }
  }

  /** Progress: one line per part started. */
  interface Steps {
    void step(String what);

    void done(String detail, long startNanos);
  }

  private final Deque<AutoCloseable> started = new ArrayDeque<>();
  final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  final String topic = TOPIC_PREFIX + "." + OrderEvents.AGGREGATE_TYPE;
  final String bulkTopic = TOPIC_PREFIX + "." + OrderEvents.BULK_AGGREGATE_TYPE;
  final CallOverlap overlap = new CallOverlap();
  Stack stack;
  DatabaseSettings db;
  DSLContext orderDb;
  DSLContext billingDb;
  OrderService orderService;
  OutboxRelay relay;
  InboxConsumer billing;
  IntegratorSimulator integrator;
  PaymentGatewaySimulator gateway;
  InvoiceIssuer issuer;
  PaymentCollector payments;
  OrderHttpServer api;

  private LocalSystem() {}

  /**
   * Starts everything; on a failure, stops what was started and rethrows.
   *
   * @param dropSlotOnStop true for a throw-away run (the demo): the next start begins afresh
   */
  static LocalSystem start(
      StackConfig config, Ports ports, boolean dropSlotOnStop, Clock clock, Steps steps)
      throws Exception {
    LocalSystem s = new LocalSystem();
    try {
      s.startAll(config, ports, dropSlotOnStop, clock, steps);
      return s;
    } catch (Exception | Error e) {
      s.close();
      throw e;
    }
  }

  private void startAll(
      StackConfig config, Ports ports, boolean dropSlotOnStop, Clock clock, Steps steps)
      throws Exception {
    steps.step(
        config.mode() == StackMode.EXTERNAL
            ? "Checking the external servers"
            : "Starting the " + config.mode().name().toLowerCase(Locale.ROOT) + " stack");
    long t0 = System.nanoTime();
    stack = keep(Stack.start(config));
    db = new DatabaseSettings(stack.jdbcUrl(), stack.dbUser(), stack.dbPassword());
    Preflight.checkPostgres(db, true);
    Preflight.checkKafka(stack.kafkaBootstrap(), Preflight.DEFAULT_TIMEOUT);
    steps.done("PostgreSQL " + db.redactedUrl() + ", Kafka " + stack.kafkaBootstrap(), t0);

    steps.step("Migrating order-service and billing schemas");
    t0 = System.nanoTime();
    HikariDataSource orderPool = keep(db.withSchema(ORDER_SCHEMA).pool("orders", 8));
    HikariDataSource billingPool = keep(db.withSchema(BILLING_SCHEMA).pool("billing", 8));
    OrderService.migrate(orderPool, ORDER_SCHEMA);
    BillingService.migrate(billingPool, BILLING_SCHEMA);
    orderDb = DSL.using(orderPool, SQLDialect.POSTGRES);
    billingDb = DSL.using(billingPool, SQLDialect.POSTGRES);
    orderService = new OrderService(orderDb, clock);
    steps.done("Flyway", t0);

    steps.step("Starting the CDC relay (embedded Debezium, pgoutput, outbox router)");
    t0 = System.nanoTime();
    relay =
        keep(
            new OutboxRelay(
                    RelayConfig.builder(
                            db.withSchema(ORDER_SCHEMA),
                            stack.kafkaBootstrap(),
                            ORDER_SCHEMA,
                            TOPIC_PREFIX)
                        .slot(SLOT, SLOT, dropSlotOnStop)
                        .build(),
                    registry)
                .start());
    relay.awaitStreaming(Duration.ofSeconds(60));
    steps.done("slot " + SLOT, t0);

    steps.step("Starting billing (inbox consumer of " + topic + " and " + bulkTopic + ")");
    t0 = System.nanoTime();
    billing =
        keep(
            BillingService.start(
                InboxConsumerConfig.of(
                        BillingService.CONSUMER_NAME,
                        "ordinal-demo-billing",
                        List.of(topic, bulkTopic),
                        stack.kafkaBootstrap())
                    .withConcurrency(4)
                    .withPriority(List.of(topic)),
                billingDb,
                registry,
                clock));
    billing.awaitAssignment(Duration.ofSeconds(30));
    steps.done("group ordinal-demo-billing, concurrency 4, interactive before bulk", t0);

    steps.step("Starting the integrator and payment gateway simulators, the issuer and payments");
    t0 = System.nanoTime();
    integrator =
        keep(
            new IntegratorSimulator(
                    ports.integrator(),
                    IntegratorFaults.defaults()
                        .withLatency(Duration.ofMillis(20), Duration.ofMillis(200))
                        .withTransientFailureRate(0.05)
                        .withDroppedAfterAcceptRate(0.05))
                .start());
    gateway =
        keep(
            new PaymentGatewaySimulator(
                    ports.gateway(),
                    PaymentGatewayFaults.defaults()
                        .withLatency(Duration.ofMillis(5), Duration.ofMillis(50)))
                .start());
    issuer =
        keep(
            new InvoiceIssuer(
                    InvoiceIssuerConfig.defaults()
                        .withWorkers(4)
                        .withBackoff(Duration.ofMillis(50), Duration.ofSeconds(1)),
                    billingDb,
                    overlap.wrap(
                        new HttpEInvoiceIntegrator(integrator.baseUri(), Duration.ofSeconds(5))),
                    registry,
                    clock)
                .start());
    payments =
        keep(
            new PaymentCollector(
                    billingDb,
                    new HttpPaymentGateway(gateway.baseUri(), Duration.ofSeconds(5)),
                    4,
                    registry,
                    clock)
                .start(Duration.ofMillis(100)));
    steps.done("integrator: 20-200 ms, 5% transient failures, 5% accepted-then-dropped", t0);

    if (ports.orderApi() >= 0) {
      steps.step("Starting the order-service HTTP API");
      t0 = System.nanoTime();
      api = keep(new OrderHttpServer(orderService, registry, clock).start(ports.orderApi()));
      steps.done("http://localhost:" + api.port(), t0);
    }
  }

  private <T extends AutoCloseable> T keep(T resource) {
    started.push(resource);
    return resource;
  }

  @Override
  public void close() {
    while (!started.isEmpty()) {
      try {
        started.pop().close();
      } catch (Exception e) {
        // keep stopping the rest; the log has the details
        org.slf4j.LoggerFactory.getLogger(LocalSystem.class)
            .warn("Stopping a part failed: {}", e.toString());
      }
    }
  }
}
