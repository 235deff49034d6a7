package dev.ordinal.cli;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.outbox.OutboxRetentionConfig;
import dev.ordinal.messaging.outbox.OutboxRetentionMode;
import dev.ordinal.order.OrderHttpServer;
import dev.ordinal.order.OrderServiceApp;
import dev.ordinal.order.OrderServiceSettings;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "order-service",
    mixinStandardHelpOptions = true,
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
final class OrderServiceCommand implements Callable<Integer> {
  // visible for testing
  Map<String, String> env = System.getenv();

  @Option(
      names = "--schema",
      defaultValue = OrderServiceSettings.DEFAULT_SCHEMA,
      description = "The service's schema (default ${DEFAULT-VALUE}).")
  String schema;

  @Option(
      names = "--port",
      defaultValue = "" + OrderHttpServer.DEFAULT_PORT,
      description = "Port of the HTTP API (default ${DEFAULT-VALUE}; 0 picks a free one).")
  int port;

  @Option(
      names = "--pool-size",
      defaultValue = "" + OrderServiceSettings.DEFAULT_POOL_SIZE,
      description = "Database connections (default ${DEFAULT-VALUE}).")
  int poolSize;

  @Option(
      names = "--http-threads",
      defaultValue = "" + OrderServiceSettings.DEFAULT_HTTP_THREADS,
      description =
          "Most threads in the HTTP API's Jetty pool, "
              + OrderServiceSettings.MIN_HTTP_THREADS
              + " to "
              + OrderServiceSettings.MAX_HTTP_THREADS
              + " (default ${DEFAULT-VALUE}, Javalin's own; `bench orders` compares it with"
              + " fewer).")
  int httpThreads;

  @Option(
      names = "--outbox-retention",
      defaultValue = "after-age",
      description = {
        "What happens to published outbox rows (default ${DEFAULT-VALUE}):",
        "  delete-on-write  deleted in the writing transaction (CDC relay only: it reads the insert"
            + " from the WAL; start the relay first)",
        "  after-age        deleted once older than --outbox-retention-age (CDC relay)",
        "  after-dispatch   deleted once dispatched longer ago than --outbox-retention-age"
            + " (polling relay)"
      })
  String outboxRetention;

  @Option(
      converter = DurationConverter.class,
      names = "--outbox-retention-age",
      defaultValue = "PT1H",
      description = "How long rows are kept, ISO-8601 (default ${DEFAULT-VALUE}).")
  Duration outboxRetentionAge;

  @Option(
      converter = DurationConverter.class,
      names = "--idempotency-key-retention",
      defaultValue = "PT24H",
      description =
          "How long an Idempotency-Key is remembered: a retry with the same key within it gets"
              + " the first answer, a later one places a new order (default ${DEFAULT-VALUE}).")
  Duration idempotencyKeyRetention;

  @Mixin Management management = new Management(OrderServiceSettings.DEFAULT_MANAGEMENT_PORT);

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private OutboxRetentionConfig retentionConfig() {
    OutboxRetentionMode mode =
        switch (outboxRetention) {
          case "delete-on-write" -> OutboxRetentionMode.DELETE_ON_WRITE;
          case "after-age" -> OutboxRetentionMode.AFTER_AGE;
          case "after-dispatch" -> OutboxRetentionMode.AFTER_DISPATCH;
          default ->
              throw new CommandLine.ParameterException(
                  spec.commandLine(),
                  "--outbox-retention must be delete-on-write, after-age or after-dispatch, not "
                      + outboxRetention);
        };
    try {
      return OutboxRetentionConfig.of(
          mode, mode == OutboxRetentionMode.DELETE_ON_WRITE ? null : outboxRetentionAge);
    } catch (ConfigurationException e) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--outbox-retention-age: " + e.getMessage());
    }
  }

  /** The options, checked; each problem is one sentence, before any server is touched. */
  OrderServiceSettings settings(DatabaseSettings db) {
    try {
      return OrderServiceSettings.defaults(db)
          .withSchema(schema)
          .withPort(port)
          .withPoolSize(poolSize)
          .withHttpThreads(httpThreads)
          .withOutboxRetention(retentionConfig())
          .withIdempotencyKeyRetention(idempotencyKeyRetention)
          .withManagement(management.settings(spec));
    } catch (ConfigurationException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
  }

  @Override
  public Integer call() throws Exception {
    return Serve.onServers(
        spec.commandLine(),
        "order-service",
        env,
        (db, bootstrap) -> settings(db),
        OrderServiceApp::new,
        (s, app) ->
            String.format(
                "order-service listening on http://localhost:%d (database %s, outbox retention %s%s,"
                    + " idempotency keys kept %s)",
                app.port(),
                s.db().redactedUrl(),
                outboxRetention,
                s.outboxRetention().mode() == OutboxRetentionMode.DELETE_ON_WRITE
                    ? ""
                    : " " + s.outboxRetention().retention(),
                s.idempotencyKeyRetention()),
        UnaryOperator.identity());
  }
}
