package dev.ordinal.cli;

import dev.ordinal.billing.BillingApp;
import dev.ordinal.billing.BillingSettings;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "billing",
    mixinStandardHelpOptions = true,
    description = {
      "Runs one billing instance until Ctrl-C: migrates billing's schema, consumes the interactive"
          + " and bulk order topics through the inbox (interactive first), issues invoices at the"
          + " e-invoicing integrator (and repairs invoices whose send outcome was lost, once"
          + " their lease has passed), collects payments at the gateway, and deletes inbox rows"
          + " older than --inbox-retention and outbox rows older than --outbox-retention-age. Its"
          + " InvoiceIssued events reach <prefix>.invoice through a relay of its schema"
          + " ('relay --schema billing'). Start several with one --group to share the work.",
      "",
      "Each of those is a supervised loop: an error is logged, the loop runs again after a backoff"
          + " with jitter, and GET /health/ready on the management port names each loop, its"
          + " state and its last error. A server that does not answer at start is waited for.",
      "",
      "Database: ORDINAL_DB_URL / ORDINAL_DB_USER / ORDINAL_DB_PASSWORD, Kafka:"
          + " ORDINAL_KAFKA_BOOTSTRAP (or db.url, kafka.bootstrap in the ORDINAL_CONFIG file);"
          + " with none set it refuses ('./ordinal up' starts a local stack). Every option can"
          + " also be set as ORDINAL_BILLING_<OPTION> or billing.<option> in the ORDINAL_CONFIG"
          + " properties file (docs/OPERATIONS.md).",
      "",
      "Exit status: 0 after Ctrl-C; 2 on bad options or configuration (a refused login), or when"
          + " the inbox retention is shorter than the replay window or a topic's retention (a"
          + " replayed message would be applied twice) and --allow-short-retention is not given."
    })
final class BillingCommand implements Callable<Integer> {
  // visible for testing
  Map<String, String> env = System.getenv();

  @Option(
      names = "--schema",
      defaultValue = BillingSettings.DEFAULT_SCHEMA,
      description = "Billing's schema (default ${DEFAULT-VALUE}).")
  String schema;

  @Option(
      names = "--topic-prefix",
      defaultValue = BillingSettings.DEFAULT_TOPIC_PREFIX,
      description =
          "Reads <prefix>.order (interactive, first) and <prefix>.order-bulk (bulk) (default"
              + " ${DEFAULT-VALUE}).")
  String topicPrefix;

  @Option(
      names = "--group",
      defaultValue = BillingSettings.DEFAULT_GROUP,
      description =
          "Kafka consumer group; instances in one group share the partitions (default"
              + " ${DEFAULT-VALUE}).")
  String group;

  @Option(
      names = "--concurrency",
      defaultValue = "" + BillingSettings.DEFAULT_CONCURRENCY,
      description =
          "Messages applied in parallel by this instance (1-256, default ${DEFAULT-VALUE}).")
  int concurrency;

  @Option(
      names = "--issuer-workers",
      defaultValue = "" + BillingSettings.DEFAULT_ISSUER_WORKERS,
      description = "Integrator calls in flight at most (1-256, default ${DEFAULT-VALUE}).")
  int issuerWorkers;

  @Option(
      converter = DurationConverter.class,
      names = "--issuer-lease",
      defaultValue = "PT30S",
      description =
          "How long an invoice being sent is left alone before another instance looks it up by"
              + " number and repairs it (an instance that died mid-call); longer than the"
              + " integrator timeout of 5 s (default ${DEFAULT-VALUE}).")
  Duration issuerLease;

  @Option(
      converter = DurationConverter.class,
      names = "--payment-lease",
      defaultValue = "PT30S",
      description =
          "How long a payment being charged is left alone before it is tried again (default"
              + " ${DEFAULT-VALUE}).")
  Duration paymentLease;

  @Option(
      converter = DurationConverter.class,
      names = "--reconcile-interval",
      defaultValue = "PT1M",
      description =
          "How often the invoice numbers VOIDED or in ERROR here are checked at the integrator;"
              + " one it holds is logged and recorded for 'ordinal invoices reconcile' (default"
              + " ${DEFAULT-VALUE}).")
  Duration reconcileInterval;

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
      converter = DurationConverter.class,
      names = "--inbox-retention",
      defaultValue = "P30D",
      description =
          "How long an inbox row is kept after it was applied, ISO-8601; must cover the replay"
              + " window and the topics' retention (default ${DEFAULT-VALUE}).")
  Duration inboxRetention;

  @Option(
      converter = DurationConverter.class,
      names = "--outbox-retention-age",
      defaultValue = "PT1H",
      description =
          "How long a row of billing's outbox (InvoiceIssued) is kept; the relay of schema billing"
              + " reads it from the WAL at once (default ${DEFAULT-VALUE}).")
  Duration outboxRetention;

  @Option(
      converter = DurationConverter.class,
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
      converter = DurationConverter.class,
      names = "--session-timeout",
      defaultValue = "PT45S",
      description =
          "How long Kafka waits for a silent instance before giving its partitions to the others,"
              + " 6 s or more (default ${DEFAULT-VALUE}).")
  Duration sessionTimeout;

  @Option(
      names = "--instance-id",
      description = "This instance's name in logs and Kafka's client id (default: random).")
  String instanceId;

  @Mixin Management management = new Management(BillingSettings.DEFAULT_MANAGEMENT_PORT);

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** The options, checked; each problem is one sentence, before any server is touched. */
  BillingSettings settings(DatabaseSettings db, String bootstrap) {
    try {
      return BillingSettings.builder(db, bootstrap)
          .schema(schema)
          .topicPrefix(topicPrefix)
          .group(group)
          .concurrency(concurrency)
          .issuerWorkers(issuerWorkers)
          .issuerLease(issuerLease)
          .paymentLease(paymentLease)
          .reconcileInterval(reconcileInterval)
          .integrator(url("--integrator-url", integratorUrl))
          .gateway(url("--gateway-url", gatewayUrl))
          .inboxRetention(inboxRetention)
          .outboxRetention(outboxRetention)
          .replayWindow(replayWindow)
          .allowShortRetention(allowShortRetention)
          .sessionTimeout(sessionTimeout)
          .instanceId(instanceId)
          .management(management.settings(spec))
          .build();
    } catch (ConfigurationException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  private URI url(String option, String value) {
    try {
      return new URI(value);
    } catch (URISyntaxException e) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          option + " must be an http(s) URL such as http://localhost:8091, not " + value);
    }
  }

  @Override
  public Integer call() throws Exception {
    return Serve.onServers(
        spec.commandLine(),
        "billing",
        env,
        this::settings,
        BillingApp::new,
        (s, app) ->
            String.format(
                "billing %s: group %s, topics %s and %s (interactive first), concurrency %d,"
                    + " issuer workers %d, integrator %s, gateway %s, inbox retention %s",
                s.instanceId(),
                s.group(),
                s.interactiveTopic(),
                s.bulkTopic(),
                s.concurrency(),
                s.issuerWorkers(),
                s.integrator(),
                s.gateway(),
                s.inboxRetention()),
        // the library's "override=true" is this command's --allow-short-retention
        m -> m.replace("set override=true", "pass --allow-short-retention"));
  }
}
