package dev.ordinal.cli;

import dev.ordinal.billing.BillingApp;
import dev.ordinal.billing.BillingSettings;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.KafkaClients;
import picocli.CommandLine.Command;

@Command(
    name = "billing",
    mixinStandardHelpOptions = true,
    modelTransformer = BillingCommand.Options.class,
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
          + " ORDINAL_KAFKA_BOOTSTRAP and its client properties file ORDINAL_KAFKA_CONFIG (or"
          + " db.url, kafka.bootstrap, kafka.config in the ORDINAL_CONFIG file);"
          + " with none set it refuses ('./ordinal up' starts a local stack). Every option can"
          + " also be set as ORDINAL_BILLING_<OPTION> or billing.<option> in the ORDINAL_CONFIG"
          + " properties file (docs/OPERATIONS.md).",
      "",
      "Exit status: 0 after Ctrl-C; 2 on bad options or configuration (a refused login), or when"
          + " the inbox retention is shorter than the replay window or a topic's retention (a"
          + " replayed message would be applied twice) and --allow-short-retention is not given."
    })
final class BillingCommand extends ServiceCommand {
  /** The options: {@link BillingSettings#ALL}. */
  static final class Options extends SettingOptions {
    Options() {
      super(BillingSettings.ALL);
    }
  }

  /** The options, checked; each problem is one sentence, before any server is touched. */
  BillingSettings settings(DatabaseSettings db, KafkaClients kafka) {
    return checked(() -> BillingSettings.builder(db, kafka).with(values()).build());
  }

  @Override
  public Integer call() throws Exception {
    return serve(
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
                s.inboxRetention()));
  }
}
