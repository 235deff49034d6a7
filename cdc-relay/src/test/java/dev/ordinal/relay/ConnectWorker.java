package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordinal.testkit.JavaCommand;
import dev.ordinal.testkit.TestNamespace;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A Kafka Connect worker in distributed mode, in a JVM of its own ({@code ConnectDistributed} on
 * this test JVM's class path, so the Debezium connector is there without a plugin path), with
 * exactly-once source support and the {@code env} config provider; its REST API over {@link
 * HttpClient}. Workers of one namespace share the group and its config, offset and status topics,
 * so a worker started after a kill takes over the connector and its committed offsets. Its output
 * goes to {@code target/connect-<namespace>-<n>.log}.
 */
final class ConnectWorker implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final Process process;
  private final String rest;
  final Path log;

  private ConnectWorker(Process process, String rest, Path log) {
    this.process = process;
    this.rest = rest;
    this.log = log;
  }

  /**
   * Starts worker {@code n} of {@code ns}'s group, {@code dbPassword} in its environment as {@code
   * ORDINAL_DB_PASSWORD}, and waits until its REST API answers (90 s at most).
   */
  static ConnectWorker start(TestNamespace ns, int n, String dbPassword) throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Properties p = new Properties();
    p.setProperty("bootstrap.servers", ns.stack().kafkaBootstrap());
    p.setProperty("group.id", ns.name() + "-connect");
    for (String store : List.of("config", "offset", "status")) {
      p.setProperty(store + ".storage.topic", ns.name() + "-connect-" + store + "s");
      p.setProperty(store + ".storage.replication.factor", "1");
    }
    p.setProperty("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    p.setProperty("value.converter", "org.apache.kafka.connect.storage.StringConverter");
    p.setProperty("exactly.once.source.support", "enabled");
    p.setProperty("config.providers", "env");
    p.setProperty(
        "config.providers.env.class",
        "org.apache.kafka.common.config.provider.EnvVarConfigProvider");
    p.setProperty("listeners", "http://127.0.0.1:" + port);
    p.setProperty("rest.advertised.host.name", "127.0.0.1");
    // no plugin.path: the connector is on the class path, whose plugins all have ServiceLoader
    // manifests (scanning it instead takes about 25 s here)
    p.setProperty("plugin.discovery", "service_load");
    // a killed worker's tasks go to the next worker at once, not after the default 5 minutes
    p.setProperty("scheduled.rebalance.max.delay.ms", "0");
    p.setProperty("session.timeout.ms", "6000");
    p.setProperty("heartbeat.interval.ms", "1000");
    p.setProperty("offset.flush.interval.ms", "1000");
    Path dir = Path.of("target");
    Files.createDirectories(dir);
    Path props = dir.resolve("connect-" + ns.name() + "-" + n + ".properties");
    try (var w = Files.newBufferedWriter(props)) {
      p.store(w, "ConnectWorker");
    }
    Path log = dir.resolve("connect-" + ns.name() + "-" + n + ".log");
    ProcessBuilder pb =
        new ProcessBuilder(
                JavaCommand.of(
                    List.of("-Xmx512m"),
                    org.apache.kafka.connect.cli.ConnectDistributed.class,
                    props.toString()))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    pb.environment().put("ORDINAL_DB_PASSWORD", dbPassword);
    ConnectWorker worker = new ConnectWorker(pb.start(), "http://127.0.0.1:" + port, log);
    try {
      await("Connect worker's REST API")
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(250))
          .until(() -> worker.alive() && worker.get("/connectors") != null);
      return worker;
    } catch (RuntimeException | Error e) {
      worker.close();
      throw e;
    }
  }

  /** {@code POST /connectors} with {@code body}; the status code. */
  int create(String body) throws Exception {
    return request("POST", "/connectors", body);
  }

  /**
   * {@code method path} with {@code body} (JSON; null for none); the status code, and the answer
   * printed when it is not a success.
   */
  int request(String method, String path, String body) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(rest + path))
            .header("Content-Type", "application/json")
            .timeout(Duration.ofSeconds(30))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .build();
    HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() >= 300) {
      System.out.println(
          method + " " + path + ": " + response.statusCode() + " " + response.body());
    }
    return response.statusCode();
  }

  /** Waits until {@code connector} and its one task are RUNNING (90 s at most). */
  void awaitRunning(String connector) {
    await(connector + " RUNNING on " + rest)
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofMillis(250))
        .until(
            () -> {
              JsonNode status = get("/connectors/" + connector + "/status");
              if (status == null) {
                return false;
              }
              JsonNode tasks = status.path("tasks");
              if (tasks.size() == 1 && "FAILED".equals(tasks.get(0).path("state").asText())) {
                throw new AssertionError("task failed: " + tasks.get(0).path("trace").asText());
              }
              return "RUNNING".equals(status.path("connector").path("state").asText())
                  && tasks.size() == 1
                  && "RUNNING".equals(tasks.get(0).path("state").asText());
            });
  }

  /** {@code PUT /connectors/<connector>/stop}, and waits until it is STOPPED (60 s at most). */
  void stop(String connector) throws Exception {
    assertThat(request("PUT", "/connectors/" + connector + "/stop", null)).isEqualTo(204);
    await(connector + " STOPPED")
        .atMost(Duration.ofSeconds(60))
        .until(() -> "STOPPED".equals(state(connector)));
  }

  /** The state of {@code connector}'s task 0 and its trace, or null while it has none. */
  String task(String connector) throws InterruptedException {
    JsonNode tasks = get("/connectors/" + connector + "/status");
    if (tasks == null || tasks.path("tasks").isEmpty()) {
      return null;
    }
    JsonNode t = tasks.path("tasks").get(0);
    return t.path("state").asText() + " " + t.path("trace").asText("");
  }

  /** The connector's state (RUNNING, PAUSED, STOPPED, FAILED), or null. */
  String state(String connector) throws InterruptedException {
    JsonNode status = get("/connectors/" + connector + "/status");
    return status == null ? null : status.path("connector").path("state").asText();
  }

  /** The JSON of a GET, or null when the worker does not answer it with 200 (yet). */
  private JsonNode get(String path) throws InterruptedException {
    try {
      HttpResponse<String> r =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(rest + path))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? JSON.readTree(r.body()) : null;
    } catch (IOException notYet) {
      return null;
    }
  }

  /** True while the process runs; fails, naming its log, once it has stopped on its own. */
  private boolean alive() {
    if (!process.isAlive()) {
      throw new AssertionError("the Connect worker stopped; its output is in " + log);
    }
    return true;
  }

  /** SIGKILL, and wait until the process is gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}
