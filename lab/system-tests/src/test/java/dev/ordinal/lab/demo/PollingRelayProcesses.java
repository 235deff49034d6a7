package dev.ordinal.lab.demo;

import static org.awaitility.Awaitility.await;

import dev.ordinal.lab.devstack.StackConfig;
import dev.ordinal.lab.devstack.StackMode;
import dev.ordinal.testkit.TestNamespace;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** {@code ./ordinal relay --mode polling} in JVMs of their own, on the shared stack. */
final class PollingRelayProcesses {
  private PollingRelayProcesses() {}

  /**
   * {@code relay --mode polling --schema <schema> --topic-prefix <ns prefix> --instance-id
   * <instance>} plus {@code options}, ready (its /health/ready answered 200) within 90 s.
   */
  static ServiceProcess start(
      TestNamespace ns, Path home, String schema, String instance, String... options)
      throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                "relay",
                "--mode",
                "polling",
                "--schema",
                schema,
                "--topic-prefix",
                ns.topicPrefix(),
                "--instance-id",
                instance));
    args.addAll(List.of(options));
    ServiceProcess p =
        new ServiceProcess(
            "relay-" + instance, servers(ns, home), home, DemoCluster.freePort(), args);
    p.start();
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> p.ready() || !p.isAlive());
    if (!p.isAlive()) {
      throw new AssertionError(
          "relay "
              + instance
              + " is not running: "
              + java.nio.file.Files.readString(p.outputFile()));
    }
    return p;
  }

  /** The shared stack's servers, for a product command. */
  static StackConfig servers(TestNamespace ns, Path home) {
    return new StackConfig(
        StackMode.EXTERNAL,
        home.resolve("stack"),
        false,
        false,
        ns.stack().jdbcUrl(),
        ns.stack().dbUser(),
        ns.stack().dbPassword(),
        ns.stack().kafkaBootstrap());
  }

  /** The body of GET {@code path} on {@code p}'s management port. */
  static String get(ServiceProcess p, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + p.managementPort() + path))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  /**
   * The sum of the Prometheus samples whose line starts with {@code prefix} and has {@code tag}.
   */
  static double metric(ServiceProcess p, String prefix, String tag) throws Exception {
    return get(p, "/metrics")
        .lines()
        .filter(l -> l.startsWith(prefix) && l.contains(tag))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }
}
