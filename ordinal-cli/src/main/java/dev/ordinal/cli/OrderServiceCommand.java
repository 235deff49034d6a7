package dev.ordinal.cli;

import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.outbox.OutboxRetentionMode;
import dev.ordinal.order.ApiAuth;
import dev.ordinal.order.OrderHttpServer;
import dev.ordinal.order.OrderServiceApp;
import dev.ordinal.order.OrderServiceSettings;
import dev.ordinal.runtime.LogSetup;
import picocli.CommandLine.Command;

@Command(
    name = "order-service",
    mixinStandardHelpOptions = true,
    modelTransformer = OrderServiceCommand.Options.class,
    description = {
      "Runs the order-service HTTP API until Ctrl-C: POST /orders, GET /orders/{id},"
          + " POST /orders/{id}/cancel (docs/ORDER-API.md); health (GET /health/live,"
          + " GET /health/ready) and GET /metrics on the management port. Published outbox rows"
          + " and expired idempotency keys are deleted by supervised loops.",
      "",
      "Callers are authenticated as --auth says, which has no default: jwt (bearer tokens from"
          + " --jwt-issuer for --jwt-audience, signed by a key of --jwks-file or --jwks-url; scopes"
          + " orders:write, orders:read, orders:cancel; each caller sees only its own orders) or"
          + " none (local use only: a warning is printed, and every caller may read and cancel"
          + " every order).",
      "",
      "Its database is ORDINAL_DB_URL / ORDINAL_DB_USER / ORDINAL_DB_PASSWORD (schema 'orders',"
          + " migrated on start), or db.url in the ORDINAL_CONFIG file; without it it refuses"
          + " ('./ordinal up' starts a local stack). It has no Kafka client (the relay publishes"
          + " its outbox), so it reads no Kafka setting. A database that does not answer at start"
          + " is waited for."
          + " Every option can also be set as ORDINAL_ORDER_SERVICE_<OPTION> or"
          + " order-service.<option> in the ORDINAL_CONFIG properties file.",
      "",
      "Exit status: 0 after Ctrl-C; 2 on bad options or configuration."
    })
final class OrderServiceCommand extends ServiceCommand {
  /** The options: {@link OrderServiceSettings#ALL}. */
  static final class Options extends SettingOptions {
    Options() {
      super(OrderServiceSettings.ALL);
    }
  }

  /** The options, checked; each problem is one sentence, before any server is touched. */
  OrderServiceSettings settings(DatabaseSettings db) {
    return checked(() -> OrderServiceSettings.builder(db).with(values()).build());
  }

  @Override
  public Integer call() throws Exception {
    return serveOnDatabase(
        this::settings,
        OrderServiceApp::new,
        (s, app) -> {
          // logged as a WARN in any case; printed too unless the log itself is on standard output
          if (s.auth().isNone() && !LogSetup.logsToStdout()) {
            spec.commandLine()
                .getErr()
                .println("ordinal: WARNING: " + OrderHttpServer.UNAUTHENTICATED);
            spec.commandLine().getErr().flush();
          }
          return String.format(
              "order-service listening on %s:%d, %s (database %s, outbox retention %s%s,"
                  + " idempotency keys kept %s)",
              s.host(),
              app.port(),
              authentication(s.auth()),
              s.db().redactedUrl(),
              OrderServiceSettings.OUTBOX_RETENTION.format(s.outboxRetentionMode()),
              s.outboxRetentionMode() == OutboxRetentionMode.DELETE_ON_WRITE
                  ? ""
                  : " " + s.outboxRetentionAge(),
              s.idempotencyKeyRetention());
        });
  }

  /** How callers are authenticated, in the banner's words. */
  static String authentication(ApiAuth auth) {
    if (auth.isNone()) {
      return "callers not authenticated (--auth none)";
    }
    return "bearer tokens of "
        + auth.issuer()
        + " for "
        + auth.audience()
        + " checked with the keys of "
        + auth.keysDescription();
  }
}
