package dev.ordinal.lab.demo;

import dev.ordinal.billing.BillingApp;
import dev.ordinal.billing.BillingSettings;
import dev.ordinal.cli.CtrlC;
import dev.ordinal.cli.Settings;
import dev.ordinal.contracts.AggregateType;
import dev.ordinal.lab.devstack.StackConfig;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.PaymentGatewaySimulator;
import dev.ordinal.order.OrderHttpServer;
import dev.ordinal.order.OrderServiceApp;
import dev.ordinal.order.OrderServiceSettings;
import dev.ordinal.runtime.ServiceApp;
import dev.ordinal.runtime.ServiceStoppedException;
import java.io.PrintWriter;
import java.time.Duration;
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
    LocalSystem system =
        LocalSystem.embedded(config)
            .integrator(new IntegratorSimulator(integratorPort, LocalSystem.demoIntegratorFaults()))
            .gateway(new PaymentGatewaySimulator(gatewayPort, LocalSystem.demoGatewayFaults()))
            // unauthenticated (LocalSystem's --auth none), so on this machine only
            .orderService(o -> o.port(port).host("127.0.0.1"))
            .billing(b -> b.instanceId("billing-up"))
            .listener(progress(out))
            .build();
    try (CtrlC stop = new CtrlC("up", Duration.ofSeconds(90), system::requestStop)) {
      try {
        system.start();
        endpoints(out, system);
        stop.await();
        out.println("Stopping ...");
        out.flush();
      } catch (ServiceStoppedException e) {
        out.println("Stopped while starting.");
        out.flush();
      } finally {
        system.close();
      }
    }
    return 0;
  }

  /** "Starting the embedded stack ... ok", then "Starting relay ... ok (812 ms)" per service. */
  private static LocalSystem.Listener progress(PrintWriter out) {
    return new LocalSystem.Listener() {
      @Override
      public void starting(LocalSystem.Part part, String name) {
        if (part == LocalSystem.Part.STACK || isService(part)) {
          out.print("Starting " + name + " ... ");
          out.flush();
        }
      }

      @Override
      public void started(LocalSystem.Part part, String name, Duration took) {
        if (part == LocalSystem.Part.STACK) {
          out.println("ok");
        } else if (isService(part)) {
          out.printf("ok (%d ms)%n", took.toMillis());
        }
        out.flush();
      }
    };
  }

  private static boolean isService(LocalSystem.Part part) {
    return part == LocalSystem.Part.ORDER_SERVICE
        || part == LocalSystem.Part.BILLING
        || part == LocalSystem.Part.RELAY;
  }

  private static void endpoints(PrintWriter out, LocalSystem system) {
    OrderServiceApp orders = system.orders();
    BillingApp billing = system.billing();
    out.println();
    out.println("Ordinal is up. Ctrl-C stops all of it.");
    out.printf(
        "  order API        http://127.0.0.1:%d/orders  (docs/ORDER-API.md; unauthenticated,"
            + " --auth none: this machine only)%n",
        orders.port());
    for (ServiceApp app : List.of(orders, system.relay(), billing)) {
      out.printf(
          "  %-16s curl -s http://127.0.0.1:%d/health/ready  (and /metrics)%n",
          app.service(), app.managementPort());
    }
    out.printf(
        "  integrator sim   %s  (PUT /admin/faults, GET /admin/stats)%n",
        system.integrator().baseUri());
    out.printf("  payment gateway  %s%n", system.gateway().baseUri());
    out.printf(
        "  PostgreSQL       %s (schemas %s, %s)%n",
        system.db().redactedUrl(),
        OrderServiceSettings.DEFAULT_SCHEMA,
        BillingSettings.DEFAULT_SCHEMA);
    out.printf(
        "  Kafka            %s (topics %s, %s, %s)%n",
        system.kafkaBootstrap(),
        billing.settings().interactiveTopic(),
        billing.settings().bulkTopic(),
        AggregateType.INVOICE.topic(billing.settings().topicPrefix()));
    out.println();
    out.printf(
        "Try: curl -s 127.0.0.1:%d/orders -H 'Content-Type: application/json' -d '{\"customerId\":\"c-1\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"A\",\"quantity\":1,\"unitPrice\":\"9.90\"}]}'%n",
        orders.port());
    out.flush();
  }
}
