package dev.ordinal.lab.demo;

import static org.awaitility.Awaitility.await;

import dev.ordinal.cli.Main;
import dev.ordinal.lab.devstack.StackConfig;
import dev.ordinal.lab.devstack.StackMode;
import dev.ordinal.testkit.JavaCommand;
import dev.ordinal.testkit.TestNamespace;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The product's commands ({@code ./ordinal ...}) in JVMs of their own, on the shared stack. */
final class ProductProcesses {
  private ProductProcesses() {}

  /** What a command that exited said: its status and its output's lines. */
  record Exited(int status, List<String> lines) {}

  /**
   * {@code ./ordinal args} in a JVM of its own, with no {@code ORDINAL_} variable but {@code env}
   * and {@code ORDINAL_HOME} = {@code home}, its output in {@code home/<name>.out}; waits for it to
   * exit (60 s at most).
   */
  static Exited exited(Path home, Map<String, String> env, String name, String... args)
      throws Exception {
    ProcessBuilder b =
        new ProcessBuilder(
            JavaCommand.of(List.of("-XX:TieredStopAtLevel=1", "-Xmx256m"), Main.class, args));
    b.environment().keySet().removeIf(k -> k.startsWith("ORDINAL_"));
    b.environment().putAll(env);
    b.environment().put(StackConfig.ENV_HOME, home.toString());
    b.redirectErrorStream(true);
    Path out = home.resolve(name + ".out");
    b.redirectOutput(out.toFile());
    Process p = b.start();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(name + " did not exit within 60 s: " + Files.readString(out));
    }
    return new Exited(p.exitValue(), Files.readAllLines(out));
  }

  /** {@code ./ordinal args} as {@code name}, ready (its /health/ready answered 200) within 90 s. */
  static ServiceProcess ready(TestNamespace ns, Path home, String name, List<String> args)
      throws Exception {
    return ready(ns, home, name, args, Map.of());
  }

  /** The same with {@code env} in its environment too. */
  static ServiceProcess ready(
      TestNamespace ns, Path home, String name, List<String> args, Map<String, String> env)
      throws Exception {
    ServiceProcess p =
        new ServiceProcess(name, servers(ns, home), home, DemoCluster.freePort(), args)
            .withEnvironment(env);
    p.start();
    await()
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> p.ready() || !p.isAlive());
    if (!p.isAlive()) {
      throw new AssertionError(name + " is not running: " + Files.readString(p.outputFile()));
    }
    return p;
  }

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
    return ready(ns, home, "relay-" + instance, args);
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
