package dev.ordinal.cli;

import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.outbox.OutboxRetentionMode;
import dev.ordinal.order.OrderServiceApp;
import dev.ordinal.order.OrderServiceSettings;
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
      "Its database is ORDINAL_DB_URL / ORDINAL_DB_USER / ORDINAL_DB_PASSWORD (schema 'orders',"
          + " migrated on start) and Kafka ORDINAL_KAFKA_BOOTSTRAP (or db.url, kafka.bootstrap in"
          + " the ORDINAL_CONFIG file); with none set it refuses ('./ordinal up' starts a local"
          + " stack). A server that does not answer at start is waited for."
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
    return serve(
        (db, bootstrap) -> settings(db),
        OrderServiceApp::new,
        (s, app) ->
            String.format(
                "order-service listening on http://localhost:%d (database %s, outbox retention %s%s,"
                    + " idempotency keys kept %s)",
                app.port(),
                s.db().redactedUrl(),
                OrderServiceSettings.OUTBOX_RETENTION.format(s.outboxRetentionMode()),
                s.outboxRetentionMode() == OutboxRetentionMode.DELETE_ON_WRITE
                    ? ""
                    : " " + s.outboxRetentionAge(),
                s.idempotencyKeyRetention()));
  }
}
