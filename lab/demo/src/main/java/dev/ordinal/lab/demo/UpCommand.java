package dev.ordinal.lab.demo;

import dev.ordinal.billing.BillingApp;
import dev.ordinal.billing.BillingService;
import dev.ordinal.billing.BillingSettings;
import dev.ordinal.cli.CtrlC;
import dev.ordinal.cli.Settings;
import dev.ordinal.lab.devstack.Stack;
import dev.ordinal.lab.devstack.StackConfig;
import dev.ordinal.lab.sim.IntegratorFaults;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.PaymentGatewayFaults;
import dev.ordinal.lab.sim.PaymentGatewaySimulator;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.order.OrderHttpServer;
import dev.ordinal.order.OrderServiceApp;
import dev.ordinal.order.OrderServiceSettings;
import dev.ordinal.relay.RelayApp;
import dev.ordinal.relay.RelaySettings;
import dev.ordinal.runtime.ServiceApp;
import dev.ordinal.runtime.ServiceStoppedException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "up",
    mixinStandardHelpOptions = true,
    description = {
      "Starts the embedded stack, the integrator and payment gateway simulators and every service"
          + " (order-service, the relay of the orders and billing outboxes, billing) in this"
          + " process, each through its own runtime with its own management port, and keeps them"
          + " running until Ctrl-C, for exploring: place orders with curl or './ordinal orders"
          + " bulk', watch each /health/ready and /metrics, run './ordinal audit'.",
      "",
      "Only the embedded stack: with ORDINAL_DB_URL or ORDINAL_KAFKA_BOOTSTRAP set it refuses"
          + " (a simulator-backed billing must never take work from real servers). Run each"
          + " service with its own command against real servers.",
      "",
      "Exit status: 0 after Ctrl-C; 2 on bad options or when external servers are set."
    })
public final class UpCommand implements Callable<Integer> {
  // visible for testing
  Map<String, String> env = System.getenv();

  @Option(
      names = "--port",
      defaultValue = "" + OrderHttpServer.DEFAULT_PORT,
      description = "Port of the order-service API (default ${DEFAULT-VALUE}).")
  int port;

  @Option(
      names = "--integrator-port",
      defaultValue = "8091",
      description = "Port of the integrator simulator (default ${DEFAULT-VALUE}).")
  int integratorPort;

  @Option(
      names = "--gateway-port",
      defaultValue = "8092",
      description = "Port of the payment gateway simulator (default ${DEFAULT-VALUE}).")
  int gatewayPort;

  @Option(
      names = "--keep-data",
      description = "Keep the embedded stack's data (and the relays' slots) from the last run.")
  boolean keepData;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    for (int p : new int[] {port, integratorPort, gatewayPort}) {
      if (p < 0 || p > 65535) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "ports must be 0 to 65535, not " + p);
      }
    }
    Map<String, String> environment = Settings.environment(env);
    for (String setting : List.of(StackConfig.ENV_DB_URL, StackConfig.ENV_KAFKA_BOOTSTRAP)) {
      String value = environment.get(setting);
      if (value != null && !value.isBlank()) {
        spec.commandLine()
            .getErr()
            .println(
                "ordinal: up runs only on the embedded stack, and "
                    + setting
                    + " is set: unset it, or run each service with its own command"
                    + " (order-service, relay, billing) against those servers.");
        spec.commandLine().getErr().flush();
        return 2;
      }
    }
    PrintWriter out = spec.commandLine().getOut();
    StackConfig config =
        StackConfig.embedded(StackConfig.fromEnvironment(environment).dataDir())
            .withKeepData(keepData);
    Deque<AutoCloseable> started = new ArrayDeque<>();
    Deque<ServiceApp> apps = new ArrayDeque<>();
    try (CtrlC stop =
        new CtrlC(
            "up",
            Duration.ofSeconds(90),
            () -> {
              synchronized (apps) {
                apps.forEach(ServiceApp::requestStop);
              }
            })) {
      try {
        out.print("Starting the embedded stack ... ");
        out.flush();
        Stack stack = keep(started, Stack.start(config));
        DatabaseSettings db = StackServers.db(stack);
        out.println("ok");
        IntegratorSimulator integrator =
            keep(
                started,
                new IntegratorSimulator(
                        integratorPort,
                        IntegratorFaults.defaults()
                            .withLatency(Duration.ofMillis(20), Duration.ofMillis(200))
                            .withTransientFailureRate(0.05)
                            .withDroppedAfterAcceptRate(0.05))
                    .start());
        PaymentGatewaySimulator gateway =
            keep(
                started,
                new PaymentGatewaySimulator(
                        gatewayPort,
                        PaymentGatewayFaults.defaults()
                            .withLatency(Duration.ofMillis(5), Duration.ofMillis(50)))
                    .start());
        OrderServiceApp orders =
            start(
                out,
                started,
                apps,
                new OrderServiceApp(OrderServiceSettings.builder(db).port(port).build()));
        BillingApp billing =
            start(
                out,
                started,
                apps,
                new BillingApp(
                    BillingSettings.builder(db, stack.kafkaBootstrap())
                        .integrator(integrator.baseUri())
                        .gateway(gateway.baseUri())
                        .instanceId("billing-up")
                        .build()));
        RelayApp relay =
            start(
                out,
                started,
                apps,
                new RelayApp(
                    RelaySettings.builder(db, stack.kafkaBootstrap())
                        .schemas(
                            List.of(
                                OrderServiceSettings.DEFAULT_SCHEMA,
                                BillingSettings.DEFAULT_SCHEMA))
                        .build()));
        out.println();
        out.println("Ordinal is up. Ctrl-C stops all of it.");
        out.printf(
            "  order API        http://localhost:%d/orders  (docs/ORDER-API.md)%n", orders.port());
        for (ServiceApp app : List.of(orders, relay, billing)) {
          out.printf(
              "  %-16s curl -s http://127.0.0.1:%d/health/ready  (and /metrics)%n",
              app.service(), app.managementPort());
        }
        out.printf(
            "  integrator sim   %s  (PUT /admin/faults, GET /admin/stats)%n", integrator.baseUri());
        out.printf("  payment gateway  %s%n", gateway.baseUri());
        out.printf(
            "  PostgreSQL       %s (schemas %s, %s)%n",
            db.redactedUrl(), OrderServiceSettings.DEFAULT_SCHEMA, BillingSettings.DEFAULT_SCHEMA);
        out.printf(
            "  Kafka            %s (topics %s, %s, %s)%n",
            stack.kafkaBootstrap(),
            billing.settings().interactiveTopic(),
            billing.settings().bulkTopic(),
            billing.settings().topicPrefix() + "." + BillingService.INVOICE_AGGREGATE);
        out.println();
        out.printf(
            "Try: curl -s localhost:%d/orders -H 'Content-Type: application/json' -d '{\"customerId\":\"c-1\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"A\",\"quantity\":1,\"unitPrice\":\"9.90\"}]}'%n",
            orders.port());
        out.flush();
        stop.await();
        out.println("Stopping ...");
        out.flush();
      } catch (ServiceStoppedException e) {
        out.println("Stopped while starting.");
        out.flush();
      } finally {
        while (!started.isEmpty()) {
          try {
            started.pop().close();
          } catch (Exception e) {
            org.slf4j.LoggerFactory.getLogger(UpCommand.class)
                .warn("Stopping a part failed: {}", e.toString());
          }
        }
      }
    }
    return 0;
  }

  private static <T extends AutoCloseable> T keep(Deque<AutoCloseable> started, T part) {
    started.push(part);
    return part;
  }

  private static <T extends ServiceApp> T start(
      PrintWriter out, Deque<AutoCloseable> started, Deque<ServiceApp> apps, T app) {
    keep(started, app);
    synchronized (apps) {
      apps.push(app);
    }
    out.print("Starting " + app.service() + " ... ");
    out.flush();
    long t0 = System.nanoTime();
    app.start();
    out.printf("ok (%d ms)%n", (System.nanoTime() - t0) / 1_000_000);
    out.flush();
    return app;
  }
}
