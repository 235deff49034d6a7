package dev.ordinal.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

/**
 * A Kafka Connect worker in distributed mode, in a JVM of its own ({@code ConnectDistributed} on
 * this JVM's class path, so the Debezium connector is there without a plugin path), with the {@code
 * env} config provider and, when asked, exactly-once source support; its REST API over {@link
 * HttpClient}. Workers of one group share its config, offset and status topics ({@code
 * <group>-configs}, {@code <group>-offsets}, {@code <group>-statuss}), so a worker started after a
 * kill takes over the connector and its committed offsets. Used by the tests of the Connect path
 * and by {@code bench connect}.
 *
 * @param process the worker's JVM
 * @param rest the base URL of its REST API
 * @param log the file its output goes to
 */
public record ConnectWorker(Process process, String rest, Path log) implements AutoCloseable {
  private static final String MAIN = "org.apache.kafka.connect.cli.ConnectDistributed";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private static final Duration POLL = Duration.ofMillis(250);

  /**
   * Starts worker {@code n} of {@code ns}'s group ({@code <namespace>-connect}) with exactly-once
   * source support, {@code dbPassword} in its environment as {@code ORDINAL_DB_PASSWORD}, its
   * output in {@code target/connect-<namespace>-<n>.log}, and waits until its REST API answers (90
   * s at most).
   */
  public static ConnectWorker start(TestNamespace ns, int n, String dbPassword) throws Exception {
    return start(ns, n, dbPassword, null);
  }

  /**
   * The same with {@code pluginPath} as the worker's {@code plugin.path} and none of Ordinal's
   * classes on its class path, as a user's worker runs: Ordinal's transformation comes from the
   * plugin jar in that directory alone.
   */
  public static ConnectWorker start(TestNamespace ns, int n, String dbPassword, Path pluginPath)
      throws Exception {
    return start(
        ns.stack().kafkaBootstrap(),
        ns.name() + "-connect",
        Path.of("target", "connect-" + ns.name() + "-" + n),
        dbPassword,
        true,
        pluginPath);
  }

  /**
   * Starts a worker of {@code group} on the broker at {@code bootstrap} and waits until its REST
   * API answers (90 s at most).
   *
   * @param files where its properties and its output go: {@code <files>.properties}, {@code
   *     <files>.log}
   * @param dbPassword in its environment as {@code ORDINAL_DB_PASSWORD}
   * @param exactlyOnce {@code exactly.once.source.support}: {@code enabled}, else {@code disabled}
   */
  public static ConnectWorker start(
      String bootstrap, String group, Path files, String dbPassword, boolean exactlyOnce)
      throws Exception {
    return start(bootstrap, group, files, dbPassword, exactlyOnce, null);
  }

  private static ConnectWorker start(
      String bootstrap,
      String group,
      Path files,
      String dbPassword,
      boolean exactlyOnce,
      Path pluginPath)
      throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Properties p = new Properties();
    p.setProperty("bootstrap.servers", bootstrap);
    p.setProperty("group.id", group);
    for (String store : List.of("config", "offset", "status")) {
      p.setProperty(store + ".storage.topic", group + "-" + store + "s");
      p.setProperty(store + ".storage.replication.factor", "1");
    }
    p.setProperty("key.converter", "org.apache.kafka.connect.storage.StringConverter");
    p.setProperty("value.converter", "org.apache.kafka.connect.storage.StringConverter");
    p.setProperty("exactly.once.source.support", exactlyOnce ? "enabled" : "disabled");
    p.setProperty("config.providers", "env");
    p.setProperty(
        "config.providers.env.class",
        "org.apache.kafka.common.config.provider.EnvVarConfigProvider");
    p.setProperty("listeners", "http://127.0.0.1:" + port);
    p.setProperty("rest.advertised.host.name", "127.0.0.1");
    // the connector is on the class path, whose plugins all have ServiceLoader manifests, as
    // Ordinal's plugin jar has (scanning them instead takes about 25 s here)
    p.setProperty("plugin.discovery", "service_load");
    String classPath = System.getProperty("java.class.path");
    if (pluginPath != null) {
      p.setProperty("plugin.path", pluginPath.toAbsolutePath().toString());
      classPath = withoutOrdinal(classPath);
    }
    // a killed worker's tasks go to the next worker at once, not after the default 5 minutes
    p.setProperty("scheduled.rebalance.max.delay.ms", "0");
    p.setProperty("session.timeout.ms", "6000");
    p.setProperty("heartbeat.interval.ms", "1000");
    p.setProperty("offset.flush.interval.ms", "1000");
    Path dir = files.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    String base = files.getFileName().toString();
    Path props = dir.resolve(base + ".properties");
    try (var w = Files.newBufferedWriter(props)) {
      p.store(w, "ConnectWorker");
    }
    Path log = dir.resolve(base + ".log");
    ProcessBuilder pb =
        new ProcessBuilder(
                JavaCommand.onClassPath(List.of("-Xmx512m"), classPath, MAIN, props.toString()))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    pb.environment().put("ORDINAL_DB_PASSWORD", dbPassword);
    ConnectWorker worker = new ConnectWorker(pb.start(), "http://127.0.0.1:" + port, log);
    try {
      worker.waitUntil(
          "the Connect worker's REST API",
          Duration.ofSeconds(90),
          () -> worker.alive() && worker.get("/connectors") != null);
      return worker;
    } catch (Exception | Error e) {
      worker.close();
      throw e;
    }
  }

  /** {@code classPath} without the entries that hold classes of {@code dev.ordinal}. */
  static String withoutOrdinal(String classPath) throws IOException {
    List<String> kept = new ArrayList<>();
    for (String entry : classPath.split(File.pathSeparator)) {
      Path path = Path.of(entry);
      boolean ordinal;
      if (Files.isDirectory(path)) {
        ordinal = Files.isDirectory(path.resolve("dev/ordinal"));
      } else if (Files.isRegularFile(path)) {
        try (JarFile jar = new JarFile(path.toFile())) {
          ordinal = jar.stream().anyMatch(e -> e.getName().startsWith("dev/ordinal/"));
        }
      } else {
        ordinal = false;
      }
      if (!ordinal) {
        kept.add(entry);
      }
    }
    return String.join(File.pathSeparator, kept);
  }

  /** {@code POST /connectors} with {@code body}; the status code. */
  public int create(String body) throws Exception {
    return request("POST", "/connectors", body);
  }

  /**
   * {@code method path} with {@code body} (JSON; null for none); the status code, and the answer
   * printed when it is not a success.
   */
  public int request(String method, String path, String body) throws Exception {
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

  /**
   * Waits until {@code connector} and its one task are RUNNING (90 s at most); fails at once with
   * the task's trace when it has FAILED.
   */
  public void awaitRunning(String connector) throws Exception {
    waitUntil(
        connector + " RUNNING on " + rest,
        Duration.ofSeconds(90),
        () -> {
          JsonNode status = get("/connectors/" + connector + "/status");
          if (status == null) {
            return false;
          }
          JsonNode tasks = status.path("tasks");
          if (tasks.size() == 1 && "FAILED".equals(tasks.get(0).path("state").asText())) {
            throw new IllegalStateException("task failed: " + tasks.get(0).path("trace").asText());
          }
          return "RUNNING".equals(status.path("connector").path("state").asText())
              && tasks.size() == 1
              && "RUNNING".equals(tasks.get(0).path("state").asText());
        });
  }

  /** {@code PUT /connectors/<connector>/stop}, and waits until it is STOPPED (60 s at most). */
  public void stop(String connector) throws Exception {
    int status = request("PUT", "/connectors/" + connector + "/stop", null);
    if (status != 204) {
      throw new IllegalStateException("PUT /connectors/" + connector + "/stop: " + status);
    }
    waitUntil(
        connector + " STOPPED", Duration.ofSeconds(60), () -> "STOPPED".equals(state(connector)));
  }

  /** The state of {@code connector}'s task 0 and its trace, or null while it has none. */
  public String task(String connector) throws InterruptedException {
    JsonNode tasks = get("/connectors/" + connector + "/status");
    if (tasks == null || tasks.path("tasks").isEmpty()) {
      return null;
    }
    JsonNode t = tasks.path("tasks").get(0);
    return t.path("state").asText() + " " + t.path("trace").asText("");
  }

  /** The connector's state (RUNNING, PAUSED, STOPPED, FAILED), or null. */
  public String state(String connector) throws InterruptedException {
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
      throw new IllegalStateException("the Connect worker stopped; its output is in " + log);
    }
    return true;
  }

  /**
   * Asks {@code condition} every {@link #POLL} until it holds; fails naming {@code what} and the
   * worker's log after {@code atMost}, or with what the condition threw.
   */
  private void waitUntil(String what, Duration atMost, Callable<Boolean> condition)
      throws Exception {
    long deadline = System.nanoTime() + atMost.toNanos();
    while (!condition.call()) {
      if (System.nanoTime() - deadline >= 0) {
        throw new IllegalStateException(
            what
                + ": not within "
                + atMost.toSeconds()
                + " s (the worker's output is in "
                + log
                + ")");
      }
      TimeUnit.MILLISECONDS.sleep(POLL.toMillis());
    }
  }

  /** SIGKILL, and wait until the process is gone. */
  public void kill() throws InterruptedException {
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
