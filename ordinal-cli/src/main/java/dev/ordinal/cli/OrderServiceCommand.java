package dev.ordinal.cli;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.infra.Stack;
import dev.ordinal.infra.StackConfig;
import dev.ordinal.messaging.DatabaseSettings;
import dev.ordinal.messaging.Preflight;
import dev.ordinal.order.OrderHttpServer;
import dev.ordinal.order.OrderService;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

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
    PrintWriter out = spec.commandLine().getOut();
    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch stopped = new CountDownLatch(1);
    // on Ctrl-C the JVM exits once its hooks return: hold it until everything below is closed
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  stop.countDown();
                  try {
                    stopped.await(30, TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                },
                "order-service-stop"));
    try {
      serve(out, stop);
    } finally {
      stopped.countDown();
    }
    return 0;
  }

  private void serve(PrintWriter out, CountDownLatch stop) throws Exception {
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
              "order-service listening on http://localhost:%d (database %s); Ctrl-C stops it.%n",
              server.port(), db.redactedUrl());
          out.flush();
          stop.await();
          out.println("order-service stopping");
          out.flush();
        }
      }
    }
  }
}
