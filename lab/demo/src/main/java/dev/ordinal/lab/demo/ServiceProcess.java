package dev.ordinal.lab.demo;

import dev.ordinal.cli.Main;
import dev.ordinal.cli.ParentWatch;
import dev.ordinal.lab.devstack.StackConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One service of the demo in a JVM of its own: {@code ./ordinal <command> <args>} with the stack's
 * servers in the {@code ORDINAL_*} variables, its output and log in files of its own. The child
 * exits when its standard input closes ({@link ParentWatch}), so it dies with the demo even when
 * the demo is killed with SIGKILL. {@link #kill()} is a real crash (SIGKILL: no shutdown hook
 * runs); {@link #start()} after it starts a fresh process with the same arguments.
 */
final class ServiceProcess implements AutoCloseable {

  /** The variable naming the log file (without {@code .log}). */
  static final String LOG_NAME = "ORDINAL_LOG_NAME";

  /**
   * The variable saying where the log goes: to the file, as on a terminal, while standard output
   * (errors and the service's own lines) goes to {@link #outputFile()}.
   */
  static final String LOG_TARGET = "ORDINAL_LOG_TARGET";

  private final String name;
  private final List<String> args;
  private final Map<String, String> env;
  private final Path home;
  private final int managementPort;
  private final HttpClient http = HttpClient.newHttpClient();
  private Process process;
  private int starts;

  /**
   * @param name the process's name in the output and its files' names
   * @param home ORDINAL_HOME of the child: its log goes to {@code home/logs/<name>.log}
   * @param managementPort the child's management port (passed as {@code --management-port})
   */
  ServiceProcess(
      String name, StackConfig servers, Path home, int managementPort, List<String> args) {
    this.name = name;
    List<String> all = new ArrayList<>(args);
    all.add("--management-port");
    all.add(Integer.toString(managementPort));
    this.args = List.copyOf(all);
    this.home = home;
    this.managementPort = managementPort;
    this.env =
        new HashMap<>(
            Map.of(
                StackConfig.ENV_STACK, "external",
                StackConfig.ENV_HOME, home.toString(),
                StackConfig.ENV_DB_URL, servers.jdbcUrl(),
                StackConfig.ENV_DB_USER, servers.dbUser(),
                StackConfig.ENV_DB_PASSWORD, servers.dbPassword(),
                StackConfig.ENV_KAFKA_BOOTSTRAP, servers.kafkaBootstrap()));
  }

  /** Sets {@code variables} in the environment of the starts that follow. */
  synchronized ServiceProcess withEnvironment(Map<String, String> variables) {
    env.putAll(variables);
    return this;
  }

  String name() {
    return name;
  }

  /** Where the child's standard output and error go. */
  Path outputFile() {
    return home.resolve("logs").resolve(name + ".out");
  }

  synchronized ServiceProcess start() throws IOException {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException(name + " is running already");
    }
    Files.createDirectories(outputFile().getParent());
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    // a short-lived service on a small machine: cheap JIT and GC, little memory
    command.addAll(
        List.of(
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-Xss512k",
            "-Xmx256m",
            "-D" + ParentWatch.EXIT_WITH_PARENT + "=true",
            "-cp",
            System.getProperty("java.class.path"),
            Main.class.getName()));
    command.addAll(args);
    ProcessBuilder b = new ProcessBuilder(command);
    b.environment().putAll(env);
    // a restarted process logs to a file of its own: the crashed one's log stays
    b.environment().put(LOG_NAME, starts == 0 ? name : name + "-" + (starts + 1));
    b.environment().put(LOG_TARGET, "file");
    b.redirectErrorStream(true);
    b.redirectOutput(
        starts == 0
            ? ProcessBuilder.Redirect.to(outputFile().toFile())
            : ProcessBuilder.Redirect.appendTo(outputFile().toFile()));
    // stdin stays a pipe: it closes when this JVM dies, and the child exits on that
    process = b.start();
    starts++;
    return this;
  }

  /** The child's management port. */
  int managementPort() {
    return managementPort;
  }

  /** True when the child answers 200 on {@code /health/ready}. */
  boolean ready() {
    if (!isAlive()) {
      return false;
    }
    try {
      return http.send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + managementPort + "/health/ready"))
                      .timeout(Duration.ofSeconds(2))
                      .build(),
                  HttpResponse.BodyHandlers.discarding())
              .statusCode()
          == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** The child's {@code /health/ready} body, or why there is none. */
  String health() {
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(
                      URI.create("http://127.0.0.1:" + managementPort + "/health/ready"))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return r.statusCode() + " " + r.body();
    } catch (IOException e) {
      return "no answer: " + e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  /** The child's {@code /metrics} (Prometheus text), or null when it does not answer. */
  String metrics() {
    if (!isAlive()) {
      return null;
    }
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + "/metrics"))
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? r.body() : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** The exit status of the last process, or -1 while it runs or before it ran. */
  synchronized int exitStatus() {
    return process == null || process.isAlive() ? -1 : process.exitValue();
  }

  synchronized boolean isAlive() {
    return process != null && process.isAlive();
  }

  synchronized long pid() {
    return process == null ? -1 : process.pid();
  }

  /** SIGKILL, and waits until the process is gone: no shutdown hook, no flush. */
  synchronized void kill() throws InterruptedException {
    if (process != null) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** How often it was started. */
  synchronized int starts() {
    return starts;
  }

  /** Asks it to stop (SIGTERM), then kills it if it has not stopped within {@code grace}. */
  synchronized void stop(Duration grace) throws InterruptedException {
    if (process == null || !process.isAlive()) {
      return;
    }
    process.destroy();
    if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Override
  public void close() throws InterruptedException {
    stop(Duration.ofSeconds(15));
  }
}
