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
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.DatabaseSettings;
import dev.ordinal.messaging.InboxConsumer;
import dev.ordinal.messaging.InboxConsumerConfig;
import dev.ordinal.messaging.InboxRetention;
import dev.ordinal.messaging.InboxRetentionConfig;
import dev.ordinal.messaging.Preflight;
import dev.ordinal.messaging.Topics;
import dev.ordinal.order.OrderEvents;
import io.javalin.Javalin;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "billing",
    mixinStandardHelpOptions = true,
    description = {
      "Runs one billing instance until Ctrl-C: migrates billing's schema, consumes the interactive"
          + " and bulk order topics through the inbox (interactive first), issues invoices at the"
          + " e-invoicing integrator (and repairs invoices whose send outcome was lost, once"
          + " their lease has passed), collects payments at the gateway, and deletes inbox rows"
          + " older than --inbox-retention. Start several with one --group to share the work.",
      "",
      "Database: ORDINAL_DB_URL / ORDINAL_DB_USER / ORDINAL_DB_PASSWORD, Kafka:"
          + " ORDINAL_KAFKA_BOOTSTRAP; the embedded stack when neither is set.",
      "",
      "Exit status: 0 after Ctrl-C; 2 on bad options, or when the inbox retention is shorter"
          + " than the replay window or a topic's retention (a replayed message would be applied"
          + " twice) and --allow-short-retention is not given."
    })
final class BillingCommand implements Callable<Integer> {
  // visible for testing
  Map<String, String> env = System.getenv();

  @Option(
      names = "--schema",
      defaultValue = "billing",
      description = "Billing's schema (default ${DEFAULT-VALUE}).")
  String schema;

  @Option(
      names = "--topic-prefix",
      defaultValue = LocalSystem.TOPIC_PREFIX,
      description =
          "Reads <prefix>."
              + OrderEvents.AGGREGATE_TYPE
              + " (interactive, first) and <prefix>."
              + OrderEvents.BULK_AGGREGATE_TYPE
              + " (bulk) (default ${DEFAULT-VALUE}).")
  String topicPrefix;

  @Option(
      names = "--group",
      defaultValue = "ordinal-billing",
      description =
          "Kafka consumer group; instances in one group share the partitions (default"
              + " ${DEFAULT-VALUE}).")
  String group;

  @Option(
      names = "--concurrency",
      defaultValue = "4",
      description =
          "Messages applied in parallel by this instance (1-256, default ${DEFAULT-VALUE}).")
  int concurrency;

  @Option(
      names = "--issuer-workers",
      defaultValue = "4",
      description = "Integrator calls in flight at most (1-256, default ${DEFAULT-VALUE}).")
  int issuerWorkers;

  @Option(
      names = "--issuer-lease",
      defaultValue = "PT30S",
      description =
          "How long an invoice being sent is left alone before another instance looks it up by"
              + " number and repairs it (an instance that died mid-call); longer than the"
              + " integrator timeout of 5 s (default ${DEFAULT-VALUE}).")
  Duration issuerLease;

  @Option(
      names = "--payment-lease",
      defaultValue = "PT30S",
      description =
          "How long a payment being charged is left alone before it is tried again (default"
              + " ${DEFAULT-VALUE}).")
  Duration paymentLease;

  @Option(
      names = "--integrator-url",
      defaultValue = "http://localhost:8091",
      description = "The e-invoicing integrator (default ${DEFAULT-VALUE}).")
  String integratorUrl;

  @Option(
      names = "--gateway-url",
      defaultValue = "http://localhost:8092",
      description = "The payment gateway (default ${DEFAULT-VALUE}).")
  String gatewayUrl;

  @Option(
      names = "--inbox-retention",
      defaultValue = "P30D",
      description =
          "How long an inbox row is kept after it was applied, ISO-8601; must cover the replay"
              + " window and the topics' retention (default ${DEFAULT-VALUE}).")
  Duration inboxRetention;

  @Option(
      names = "--replay-window",
      defaultValue = "P7D",
      description =
          "The longest window operators may replay a topic over, ISO-8601; PT0S if they never"
              + " replay (default ${DEFAULT-VALUE}).")
  Duration replayWindow;

  @Option(
      names = "--allow-short-retention",
      description =
          "Start even when --inbox-retention is shorter than the replay window or a topic's"
              + " retention, accepting that a message replayed after its row is gone is applied"
              + " twice (logged as a warning).")
  boolean allowShortRetention;

  @Option(
      names = "--session-timeout",
      defaultValue = "PT45S",
      description =
          "How long Kafka waits for a silent instance before giving its partitions to the others,"
              + " 6 s or more (default ${DEFAULT-VALUE}).")
  Duration sessionTimeout;

  @Option(
      names = "--instance-id",
      description = "This instance's name in the output (default: random).")
  String instanceId;

  @Option(
      names = "--metrics-port",
      defaultValue = "9401",
      description =
          "Port of GET /metrics (Prometheus); 0 picks a free one, -1 turns it off (default"
              + " ${DEFAULT-VALUE}).")
  int metricsPort;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** The options, checked; each problem is one sentence. */
  record Settings(
      InboxConsumerConfig consumer,
      InboxRetentionConfig retention,
      InvoiceIssuerConfig issuer,
      Duration paymentLease,
      URI integrator,
      URI gateway) {}

  Settings settings(String bootstrap) {
    if (metricsPort < -1 || metricsPort > 65535) {
      throw bad("--metrics-port must be -1 to 65535, not " + metricsPort);
    }
    if (concurrency < 1 || concurrency > InboxConsumerConfig.MAX_CONCURRENCY) {
      throw bad("--concurrency must be 1 to 256, not " + concurrency);
    }
    if (issuerWorkers < 1 || issuerWorkers > 256) {
      throw bad("--issuer-workers must be 1 to 256, not " + issuerWorkers);
    }
    if (group.isBlank()) {
      throw bad("--group must not be empty");
    }
    if (paymentLease.isNegative() || paymentLease.isZero()) {
      throw bad("--payment-lease must be positive, not " + paymentLease);
    }
    if (issuerLease.compareTo(HttpEInvoiceIntegrator.DEFAULT_TIMEOUT) <= 0) {
      throw bad(
          "--issuer-lease must be longer than the integrator timeout ("
              + HttpEInvoiceIntegrator.DEFAULT_TIMEOUT
              + "), not "
              + issuerLease);
    }
    if (sessionTimeout.compareTo(Duration.ofSeconds(6)) < 0
        || sessionTimeout.compareTo(Duration.ofMinutes(30)) > 0) {
      throw bad("--session-timeout must be 6 s to 30 min, not " + sessionTimeout);
    }
    if (inboxRetention.isNegative() || inboxRetention.isZero()) {
      throw bad("--inbox-retention must be positive, not " + inboxRetention);
    }
    if (replayWindow.isNegative()) {
      throw bad("--replay-window must not be negative, not " + replayWindow);
    }
    URI integrator = url("--integrator-url", integratorUrl);
    URI gateway = url("--gateway-url", gatewayUrl);
    String interactive = topicPrefix + "." + OrderEvents.AGGREGATE_TYPE;
    String bulk = topicPrefix + "." + OrderEvents.BULK_AGGREGATE_TYPE;
    try {
      InboxConsumerConfig consumer =
          new InboxConsumerConfig(
              BillingService.CONSUMER_NAME,
              group,
              List.of(interactive, bulk),
              bootstrap,
              concurrency,
              true,
              List.of(interactive),
              null,
              null,
              null,
              Map.of(
                  ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
                  (int) sessionTimeout.toMillis(),
                  ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG,
                  (int) Math.min(3000, sessionTimeout.toMillis() / 3)));
      InboxRetentionConfig retention =
          InboxRetentionConfig.of(BillingService.CONSUMER_NAME, inboxRetention, replayWindow)
              .withOverride(allowShortRetention);
      InvoiceIssuerConfig issuer =
          new InvoiceIssuerConfig(issuerWorkers, issuerLease, null, null, null)
              .withBackoff(Duration.ofMillis(50), Duration.ofSeconds(1));
      return new Settings(consumer, retention, issuer, paymentLease, integrator, gateway);
    } catch (ConfigurationException e) {
      throw bad(e.getMessage());
    }
  }

  private URI url(String option, String value) {
    try {
      URI u = new URI(value);
      if (("http".equals(u.getScheme()) || "https".equals(u.getScheme())) && u.getHost() != null) {
        return u;
      }
    } catch (URISyntaxException e) {
      // reported below
    }
    throw bad(option + " must be an http(s) URL such as http://localhost:8091, not " + value);
  }

  private CommandLine.ParameterException bad(String sentence) {
    return new CommandLine.ParameterException(spec.commandLine(), sentence);
  }

  @Override
  public Integer call() throws Exception {
    StackConfig stackConfig = StackConfig.fromEnvironment(env);
    // the options are checked before any server is touched
    settings(
        stackConfig.mode() == dev.ordinal.infra.StackMode.EXTERNAL
            ? stackConfig.kafkaBootstrap()
            : "localhost:9092");
    PrintWriter out = spec.commandLine().getOut();
    String id =
        instanceId != null ? instanceId : "billing-" + UUID.randomUUID().toString().substring(0, 8);
    try (CtrlC stop = new CtrlC("billing", Duration.ofSeconds(60));
        Stack stack = Stack.start(stackConfig)) {
      Settings s = settings(stack.kafkaBootstrap());
      DatabaseSettings db =
          new DatabaseSettings(stack.jdbcUrl(), stack.dbUser(), stack.dbPassword());
      Preflight.checkPostgres(db, false);
      Preflight.checkKafka(stack.kafkaBootstrap(), Preflight.DEFAULT_TIMEOUT);
      for (String topic : s.consumer().topics()) {
        Topics.ensure(stack.kafkaBootstrap(), topic, Topics.DEFAULT_PARTITIONS);
      }
      Map<String, Duration> topicRetentions;
      try (Admin admin =
          Admin.create(
              Map.<String, Object>of(
                  AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafkaBootstrap()))) {
        topicRetentions =
            InboxRetention.topicRetentions(admin, s.consumer().topics(), Preflight.DEFAULT_TIMEOUT);
      }
      try {
        InboxRetention.checkCoversReplay(s.retention(), topicRetentions);
      } catch (ConfigurationException e) {
        // the library's "override=true" is this command's --allow-short-retention
        spec.commandLine()
            .getErr()
            .println(
                "ordinal: "
                    + e.getMessage().replace("set override=true", "pass --allow-short-retention"));
        spec.commandLine().getErr().flush();
        return 2;
      }
      PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
      Clock clock = Clock.systemUTC();
      Javalin metrics = null;
      try (HikariDataSource pool =
          db.withSchema(schema).pool("billing", Math.max(4, concurrency + issuerWorkers + 4))) {
        BillingService.migrate(pool, schema);
        DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
        try (InboxConsumer consumer = BillingService.start(s.consumer(), dsl, registry, clock);
            InvoiceIssuer issuer =
                new InvoiceIssuer(
                        s.issuer(),
                        dsl,
                        new HttpEInvoiceIntegrator(
                            s.integrator(), HttpEInvoiceIntegrator.DEFAULT_TIMEOUT),
                        registry,
                        clock)
                    .start();
            PaymentCollector payments =
                new PaymentCollector(
                        dsl,
                        new HttpPaymentGateway(s.gateway(), Duration.ofSeconds(5)),
                        issuerWorkers,
                        registry,
                        clock,
                        s.paymentLease())
                    .start(Duration.ofMillis(100));
            InboxRetention retention =
                new InboxRetention(s.retention(), dsl, registry, clock).start(topicRetentions)) {
          if (metricsPort >= 0) {
            metrics = MetricsEndpoint.start(registry, metricsPort);
          }
          out.printf(
              "billing %s: group %s, topics %s (interactive first), concurrency %d, issuer"
                  + " workers %d, integrator %s, gateway %s, inbox retention %s%s; Ctrl-C stops"
                  + " it.%n",
              id,
              group,
              String.join(", ", s.consumer().topics()),
              concurrency,
              issuerWorkers,
              s.integrator(),
              s.gateway(),
              inboxRetention,
              metrics == null
                  ? ""
                  : ", metrics on http://localhost:" + metrics.port() + "/metrics");
          out.flush();
          stop.await();
          out.printf(
              "billing %s stopping (applied %d, duplicates skipped %d, invoices issued %d)%n",
              id, consumer.applied(), consumer.duplicates(), issuer.issued());
          out.flush();
        } finally {
          if (metrics != null) {
            metrics.stop();
          }
        }
      }
    }
    return 0;
  }
}
