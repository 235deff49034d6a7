package dev.ordinal.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.infra.Stack;
import dev.ordinal.infra.StackConfig;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.DatabaseSettings;
import dev.ordinal.messaging.OutboxRetentionConfig;
import dev.ordinal.messaging.OutboxRetentionMode;
import dev.ordinal.messaging.Preflight;
import dev.ordinal.order.OrderHttpServer;
import dev.ordinal.order.OrderService;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "order-service",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the order-service HTTP API until Ctrl-C: POST /orders, GET /orders/{id},"
          + " POST /orders/{id}/cancel, GET /health/live, GET /health/ready, GET /metrics.",
      "",
      "Its database is ORDINAL_DB_URL (schema 'orders', migrated on start), or the embedded"
          + " stack when that is not set."
    })
final class OrderServiceCommand implements Callable<Integer> {
  static final String SCHEMA = "orders";

  @Option(
      names = "--port",
      defaultValue = "" + OrderHttpServer.DEFAULT_PORT,
      description = "Port to listen on (default ${DEFAULT-VALUE}; 0 picks a free one).")
  int port;

  @Option(
      names = "--pool-size",
      defaultValue = "16",
      description = "Database connections (default ${DEFAULT-VALUE}).")
  int poolSize;

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
      names = "--outbox-retention-age",
      defaultValue = "PT1H",
      description = "How long rows are kept, ISO-8601 (default ${DEFAULT-VALUE}).")
  Duration outboxRetentionAge;

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

  @Override
  public Integer call() throws Exception {
    if (port < 0 || port > 65535) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--port must be 0 to 65535, not " + port);
    }
    if (poolSize < 1 || poolSize > 200) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--pool-size must be 1 to 200, not " + poolSize);
    }
    OutboxRetentionConfig retention = retentionConfig();
    PrintWriter out = spec.commandLine().getOut();
    try (CtrlC stop = new CtrlC("order-service", Duration.ofSeconds(30))) {
      serve(out, stop, retention);
    }
    return 0;
  }

  private void serve(PrintWriter out, CtrlC stop, OutboxRetentionConfig retention)
      throws Exception {
    try (Stack stack = Stack.start(StackConfig.fromEnvironment(System.getenv()))) {
      DatabaseSettings db =
          new DatabaseSettings(stack.jdbcUrl(), stack.dbUser(), stack.dbPassword());
      Preflight.checkPostgres(db, false);
      try (HikariDataSource pool = db.withSchema(SCHEMA).pool("orders", poolSize)) {
        OrderService.migrate(pool, SCHEMA);
        OrderService orders =
            new OrderService(DSL.using(pool, SQLDialect.POSTGRES), Clock.systemUTC());
        try (OrderHttpServer server =
            new OrderHttpServer(
                    orders,
                    new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
                    Clock.systemUTC())
                .start(port)) {
          out.printf(
              "order-service listening on http://localhost:%d (database %s, outbox retention %s%s);"
                  + " Ctrl-C stops it.%n",
              server.port(),
              db.redactedUrl(),
              outboxRetention,
              retention.mode() == OutboxRetentionMode.DELETE_ON_WRITE
                  ? ""
                  : " " + outboxRetentionAge);
          out.flush();
          stop.await();
          out.println("order-service stopping");
          out.flush();
        }
      }
    }
  }
}
