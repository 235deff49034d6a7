package dev.ordinal.cli;

import dev.ordinal.infra.StackConfig;
import dev.ordinal.order.OrderHttpServer;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "up",
    mixinStandardHelpOptions = true,
    description = {
      "Starts the stack and every service (order-service HTTP API, CDC relay, billing with"
          + " priority lanes, invoice issuer, payments, the integrator and payment gateway"
          + " simulators) and keeps them running until Ctrl-C, for exploring: place orders with"
          + " curl or './ordinal orders bulk', watch /metrics, run './ordinal audit'.",
      "",
      "The embedded stack unless ORDINAL_DB_URL / ORDINAL_KAFKA_BOOTSTRAP name external servers."
    })
final class UpCommand implements Callable<Integer> {
  @Option(
      names = "--port",
      defaultValue = "" + OrderHttpServer.DEFAULT_PORT,
      description = "Port of the order-service API and /metrics (default ${DEFAULT-VALUE}).")
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
      description = "Keep the embedded stack's data (and the relay's slot) from the last run.")
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
    PrintWriter out = spec.commandLine().getOut();
    StackConfig config = StackConfig.fromEnvironment(System.getenv()).withKeepData(keepData);
    try (CtrlC stop = new CtrlC("up", Duration.ofSeconds(60));
        LocalSystem system =
            LocalSystem.start(
                config,
                new LocalSystem.Ports(integratorPort, gatewayPort, port),
                !keepData,
                Clock.systemUTC(),
                new LocalSystem.Steps() {
                  @Override
                  public void step(String what) {
                    out.print(what + " ... ");
                    out.flush();
                  }

                  @Override
                  public void done(String detail, long startNanos) {
                    out.printf(
                        "ok (%s, %d ms)%n", detail, (System.nanoTime() - startNanos) / 1_000_000);
                    out.flush();
                  }
                })) {
      int api = system.api.port();
      out.println();
      out.println("Ordinal is up. Ctrl-C stops all of it.");
      out.printf("  order API        http://localhost:%d/orders  (docs/ORDER-API.md)%n", api);
      out.printf(
          "  metrics          http://localhost:%d/metrics (orders, relay, inbox, issuer, payments)%n",
          api);
      out.printf(
          "  integrator sim   %s  (PUT /admin/faults, GET /admin/stats)%n",
          system.integrator.baseUri());
      out.printf("  payment gateway  %s%n", system.gateway.baseUri());
      out.printf(
          "  PostgreSQL       %s (schemas %s, %s)%n",
          system.db.redactedUrl(), LocalSystem.ORDER_SCHEMA, LocalSystem.BILLING_SCHEMA);
      out.printf(
          "  Kafka            %s (topics %s, %s)%n",
          system.stack.kafkaBootstrap(), system.topic, system.bulkTopic);
      out.printf("  relay slot       %s%n", LocalSystem.SLOT);
      out.println();
      out.printf(
          "Try: curl -s localhost:%d/orders -H 'Content-Type: application/json' -d '{\"customerId\":\"c-1\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"A\",\"quantity\":1,\"unitPrice\":\"9.90\"}]}'%n",
          api);
      out.flush();
      stop.await();
      out.println("Stopping ...");
      out.flush();
    }
    return 0;
  }
}
