package dev.ordinal.lab.sim;

import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;

/**
 * Runs both simulators until the process is stopped: {@code SimulatorMain [integratorPort
 * [paymentPort]]}, by default {@value IntegratorSimulator#DEFAULT_PORT} and {@value
 * PaymentGatewaySimulator#DEFAULT_PORT} (0 picks a free port). They start with their default
 * latency and no faults; change the faults at run time with {@code PUT /admin/faults}. Prints where
 * each listens; exits 2 on bad arguments, 1 when a port is taken. Ctrl-C (SIGTERM) stops both.
 */
public final class SimulatorMain {
  private SimulatorMain() {}

  public static void main(String[] args) throws InterruptedException {
    int[] ports = ports(args, System.err);
    if (ports == null) {
      System.exit(2);
      return;
    }
    IntegratorSimulator integrator = new IntegratorSimulator(ports[0], IntegratorFaults.defaults());
    PaymentGatewaySimulator gateway =
        new PaymentGatewaySimulator(ports[1], PaymentGatewayFaults.defaults());
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  gateway.close();
                  integrator.close();
                  stopped.countDown();
                },
                "simulators-shutdown"));
    try {
      integrator.start();
      gateway.start();
    } catch (SimulatorException e) {
      System.err.println(e.getMessage());
      System.exit(1);
      return;
    }
    System.out.println(
        "e-invoice integrator simulator: "
            + integrator.baseUri()
            + "  (POST /invoices, GET /invoices/{series}/{number}, GET|PUT /admin/faults)");
    System.out.println(
        "payment gateway simulator:      "
            + gateway.baseUri()
            + "  (POST /charges, POST /charges/{id}/refund, GET|PUT /admin/faults)");
    System.out.println("Ctrl-C stops both.");
    stopped.await();
  }

  /** The two ports from the arguments, or null after printing the usage to {@code err}. */
  static int[] ports(String[] args, PrintStream err) {
    int[] ports = {IntegratorSimulator.DEFAULT_PORT, PaymentGatewaySimulator.DEFAULT_PORT};
    if (args.length > 2) {
      return usage(err, "At most two arguments: the integrator's port and the gateway's port.");
    }
    for (int i = 0; i < args.length; i++) {
      try {
        ports[i] = Integer.parseInt(args[i]);
      } catch (NumberFormatException e) {
        ports[i] = -1;
      }
      if (ports[i] < 0 || ports[i] > 65535) {
        return usage(err, "'" + args[i] + "' is not a port (0 to 65535).");
      }
    }
    return ports;
  }

  private static int[] usage(PrintStream err, String problem) {
    err.println(problem);
    err.println(
        "Usage: SimulatorMain [integratorPort ["
            + "paymentPort]]   (defaults "
            + IntegratorSimulator.DEFAULT_PORT
            + " and "
            + PaymentGatewaySimulator.DEFAULT_PORT
            + "; 0 picks a free port)");
    return null;
  }
}
