package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.runtime.ManagementSettings;
import dev.ordinal.runtime.ServiceRuntime;
import java.io.IOException;
import java.io.Reader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import picocli.CommandLine;

/**
 * {@code deploy/compose.yaml} and {@code deploy/k8s/*.yaml} against the code. Neither can run here
 * (no container engine, no cluster), so what they say about the code is checked: each container
 * runs a real command of {@code ./ordinal}, every {@code ORDINAL_*} variable is a setting of that
 * command or a server's, each probe asks the command's management port on a path the runtime
 * serves, and each stop grace period exceeds the bound a service takes to stop ({@link
 * Serve#STOP_BOUND}).
 */
class DeployFilesTest {
  private static final Path DEPLOY = Path.of("..", "deploy");
  private static final CommandLine CLI = Main.commandLine(Map.of());
  private static final Set<String> SERVER_VARIABLES =
      Set.of(
          ServerSettings.ENV_DB_URL,
          ServerSettings.ENV_DB_USER,
          ServerSettings.ENV_DB_PASSWORD,
          ServerSettings.ENV_KAFKA_BOOTSTRAP);

  private static ServiceRuntime runtime;
  private static final HttpClient http = HttpClient.newHttpClient();

  @BeforeAll
  static void startAManagementPort() {
    runtime = new ServiceRuntime("deploy-files", ManagementSettings.local(0), Clock.systemUTC());
  }

  @AfterAll
  static void stopIt() {
    runtime.close();
  }

  // ---------------------------------------------------------------- compose

  @Test
  void composeRunsEachServiceThroughARealCommandWithTheRightCount() throws IOException {
    List<String> commands = new ArrayList<>();
    ordinalServices().forEach((name, service) -> commands.add(command(list(service, "command"))));
    assertThat(commands)
        .containsExactlyInAnyOrder(
            "order-service", "relay", "relay", "billing", "billing", "monitor");
  }

  @Test
  void composeConfiguresTheServicesWithTheirOwnOrdinalVariablesOnly() throws IOException {
    ordinalServices()
        .forEach(
            (name, service) -> {
              String command = command(list(service, "command"));
              Set<String> set = map(service, "environment").keySet();
              assertThat(set).as(name).allMatch(v -> v.startsWith("ORDINAL_"));
              assertThat(variablesOf(command)).as(name).containsAll(set);
              assertThat(set)
                  .as(name + ": the management port on every interface of the container")
                  .contains(variableOf(command, "management-host"));
              assertThat(map(service, "environment").get(variableOf(command, "management-host")))
                  .isEqualTo("0.0.0.0");
            });
  }

  @Test
  void composeHealthChecksAskEachServicesManagementPortOnAServedPath() throws IOException {
    ordinalServices()
        .forEach(
            (name, service) -> {
              List<String> test = list(map(service, "healthcheck"), "test");
              int probe = test.indexOf(HealthProbe.class.getName());
              assertThat(test.subList(0, 2)).as(name).containsExactly("CMD", ImageIT.JAVA);
              assertThat(test.get(probe - 1)).as(name).isEqualTo(ImageIT.CLASSES);
              assertThat(test.get(probe - 2)).as(name).isEqualTo("-cp");
              String command = command(list(service, "command"));
              assertThat(Integer.parseInt(test.get(probe + 1)))
                  .as(name + "'s management port")
                  .isEqualTo(managementPort(command, map(service, "environment")));
              assertThat(test.get(probe + 2)).isEqualTo("/health/ready");
              assertServed(test.get(probe + 2), 503);
            });
  }

  @Test
  void composeStartsAServiceOnlyOnceWhatItNeedsIsHealthy() throws IOException {
    Map<String, Object> services = map(compose(), "services");
    services.forEach(
        (name, s) -> {
          Map<String, Object> service = cast(s);
          if (!service.containsKey("depends_on")) {
            return;
          }
          map(service, "depends_on")
              .forEach(
                  (needed, how) -> {
                    assertThat(cast(how))
                        .as(name + " -> " + needed)
                        .containsEntry("condition", "service_healthy");
                    assertThat(cast(services.get(needed)))
                        .as(needed + " has a health check")
                        .containsKey("healthcheck");
                  });
        });
    // the relays wait for the outbox tables order-service and billing create
    assertThat(map(map(services, "relay-1"), "depends_on"))
        .containsKeys("postgres", "kafka", "order-service", "billing-1");
  }

  @Test
  void composeGivesEachServiceLongerToStopThanItTakes() throws IOException {
    ordinalServices()
        .forEach(
            (name, service) ->
                assertThat(Duration.ofSeconds(seconds((String) service.get("stop_grace_period"))))
                    .as(name)
                    .isGreaterThan(Serve.STOP_BOUND));
  }

  @Test
  void composeRunsPostgresWithLogicalDecodingAndKafkaInKraftMode() throws IOException {
    Map<String, Object> services = map(compose(), "services");
    Map<String, Object> postgres = map(services, "postgres");
    assertThat((String) postgres.get("image")).isEqualTo("postgres:17");
    assertThat(list(postgres, "command")).contains("wal_level=logical");
    Map<String, Object> kafka = map(services, "kafka");
    assertThat((String) kafka.get("image")).startsWith("apache/kafka:");
    assertThat(map(kafka, "environment")).containsEntry("KAFKA_PROCESS_ROLES", "broker,controller");
  }

  // ---------------------------------------------------------------- kubernetes

  @Test
  void kubernetesRunsEachServiceThroughARealCommandWithTheRightReplicas() throws IOException {
    Map<String, Integer> replicas = new LinkedHashMap<>();
    for (Map<String, Object> d : kinds("Deployment")) {
      replicas.put(command(list(container(d), "args")), (Integer) map(d, "spec").get("replicas"));
    }
    assertThat(replicas)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("order-service", 1, "relay", 2, "billing", 2, "monitor", 1));
  }

  @Test
  void kubernetesConfiguresTheServicesWithOrdinalVariablesOnlyAndThePasswordFromASecret()
      throws IOException {
    Map<String, String> config = configMap();
    assertThat(config.keySet()).allMatch(v -> v.startsWith("ORDINAL_"));
    assertThat(allVariables()).containsAll(config.keySet());
    assertThat(config).doesNotContainKey(ServerSettings.ENV_DB_PASSWORD);
    for (Map<String, Object> d : kinds("Deployment")) {
      Map<String, Object> c = container(d);
      String command = command(list(c, "args"));
      assertThat(list(c, "envFrom"))
          .extracting(from -> map(cast(from), "configMapRef").get("name"))
          .containsExactly("ordinal-config");
      for (Object e : (List<?>) c.getOrDefault("env", List.of())) {
        Map<String, Object> env = cast(e);
        String name = (String) env.get("name");
        assertThat(variablesOf(command)).as(command).contains(name);
        assertThat(env)
            .as(name + " comes from the pod, never a literal")
            .doesNotContainKey("value");
        if (name.equals(ServerSettings.ENV_DB_PASSWORD)) {
          assertThat(map(map(env, "valueFrom"), "secretKeyRef"))
              .containsEntry("name", "ordinal-db")
              .containsEntry("key", "password");
        }
      }
      assertThat(config).containsEntry(variableOf(command, "management-host"), "0.0.0.0");
    }
  }

  @Test
  void kubernetesProbesAskEachServicesManagementPortOnServedPaths() throws IOException {
    for (Map<String, Object> d : kinds("Deployment")) {
      Map<String, Object> c = container(d);
      String command = command(list(c, "args"));
      Map<String, Integer> ports = new HashMap<>();
      list(c, "ports")
          .forEach(
              p -> ports.put((String) cast(p).get("name"), (Integer) cast(p).get("containerPort")));
      assertThat(ports.get("management"))
          .as(command)
          .isEqualTo(managementPort(command, configMap()));
      Map<String, Object> live = map(map(c, "livenessProbe"), "httpGet");
      Map<String, Object> ready = map(map(c, "readinessProbe"), "httpGet");
      assertThat(live).containsEntry("path", "/health/live").containsEntry("port", "management");
      assertThat(ready).containsEntry("path", "/health/ready").containsEntry("port", "management");
      assertServed((String) live.get("path"), 200);
      assertServed((String) ready.get("path"), 503);
    }
  }

  @Test
  void kubernetesGivesEachPodLongerToStopThanItTakesAndRunsItAsNonRoot() throws IOException {
    for (Map<String, Object> d : kinds("Deployment")) {
      Map<String, Object> pod = map(map(d, "spec"), "template");
      Map<String, Object> spec = map(pod, "spec");
      assertThat(Duration.ofSeconds((Integer) spec.get("terminationGracePeriodSeconds")))
          .isGreaterThan(Serve.STOP_BOUND);
      Map<String, Object> security = map(spec, "securityContext");
      assertThat(security).containsEntry("runAsNonRoot", true).containsEntry("runAsUser", 65532);
      assertThat(map(container(d), "securityContext"))
          .containsEntry("readOnlyRootFilesystem", true);
    }
  }

  @Test
  void kubernetesKeepsOneRelayThroughAVoluntaryDisruption() throws IOException {
    List<Map<String, Object>> budgets = kinds("PodDisruptionBudget");
    assertThat(budgets).hasSize(1);
    Map<String, Object> spec = map(budgets.get(0), "spec");
    assertThat(spec).containsEntry("minAvailable", 1);
    Map<String, Object> relay =
        kinds("Deployment").stream()
            .filter(d -> command(list(container(d), "args")).equals("relay"))
            .findFirst()
            .orElseThrow();
    assertThat(map(spec, "selector"))
        .isEqualTo(map(map(relay, "spec"), "selector"))
        .containsEntry(
            "matchLabels", map(map(map(map(relay, "spec"), "template"), "metadata"), "labels"));
  }

  // ---------------------------------------------------------------- the code's side

  /** The command a container's arguments run: the subcommand path, which must exist. */
  private static String command(List<String> args) {
    CommandLine c = CLI;
    List<String> path = new ArrayList<>();
    for (String a : args) {
      if (a.startsWith("-")) {
        break;
      }
      CommandLine sub = c.getSubcommands().get(a);
      assertThat(sub)
          .as("'%s' is a command of ./ordinal %s", a, String.join(" ", path))
          .isNotNull();
      assertThat((Object) sub.getCommand()).isNotInstanceOf(CommandLine.HelpCommand.class);
      path.add(a);
      c = sub;
    }
    assertThat(path).as("a command in %s", args).isNotEmpty();
    return String.join(" ", path);
  }

  /** Every variable the code reads as a setting: each command's options and the servers. */
  private static Set<String> allVariables() {
    Set<String> all = new TreeSet<>();
    Settings.knownKeys(CLI).forEach(k -> all.add(Settings.variable(k)));
    assertThat(all).containsAll(SERVER_VARIABLES);
    return all;
  }

  /** The variables {@code command} reads: its own options' and the servers'. */
  private static Set<String> variablesOf(String command) {
    Set<String> own = new TreeSet<>(SERVER_VARIABLES);
    String prefix = command.replace(' ', '.') + ".";
    Settings.knownKeys(CLI).stream()
        .filter(k -> k.startsWith(prefix) && k.indexOf('.', prefix.length()) < 0)
        .forEach(k -> own.add(Settings.variable(k)));
    return own;
  }

  private static String variableOf(String command, String option) {
    String v = Settings.variable(command.replace(' ', '.') + "." + option);
    assertThat(variablesOf(command)).contains(v);
    return v;
  }

  /** The management port {@code command} listens on with {@code env}: its default unless set. */
  private static int managementPort(String command, Map<String, ?> env) {
    Object set = env.get(variableOf(command, "management-port"));
    String text =
        set != null
            ? set.toString()
            : CLI.getSubcommands()
                .get(command)
                .getCommandSpec()
                .findOption("management-port")
                .defaultValue();
    return Integer.parseInt(text);
  }

  /** {@code path} is served by a service's management port, answering {@code status} now. */
  private static void assertServed(String path, int status) {
    try {
      HttpResponse<Void> answer =
          http.send(
              HttpRequest.newBuilder(
                      URI.create("http://127.0.0.1:" + runtime.managementPort() + path))
                  .build(),
              HttpResponse.BodyHandlers.discarding());
      assertThat(answer.statusCode()).as(path).isEqualTo(status);
    } catch (IOException e) {
      throw new AssertionError(path + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  // ---------------------------------------------------------------- the files

  private static Map<String, Object> compose() throws IOException {
    try (Reader r = Files.newBufferedReader(DEPLOY.resolve("compose.yaml"))) {
      return new Yaml().load(r);
    }
  }

  /** The services that run the Ordinal image. */
  private static Map<String, Map<String, Object>> ordinalServices() throws IOException {
    Map<String, Map<String, Object>> ordinal = new LinkedHashMap<>();
    map(compose(), "services")
        .forEach(
            (name, s) -> {
              Map<String, Object> service = cast(s);
              if (((String) service.get("image")).contains("ordinal:")) {
                ordinal.put(name, service);
              }
            });
    assertThat(ordinal).isNotEmpty();
    return ordinal;
  }

  /** Every document of kind {@code kind} in deploy/k8s. */
  private static List<Map<String, Object>> kinds(String kind) throws IOException {
    List<Map<String, Object>> found = new ArrayList<>();
    List<Path> files;
    try (Stream<Path> s = Files.list(DEPLOY.resolve("k8s"))) {
      files = s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    }
    for (Path f : files) {
      try (Reader r = Files.newBufferedReader(f)) {
        for (Object doc : new Yaml().loadAll(r)) {
          if (doc != null && kind.equals(cast(doc).get("kind"))) {
            found.add(cast(doc));
          }
        }
      }
    }
    return found;
  }

  private static Map<String, String> configMap() throws IOException {
    List<Map<String, Object>> maps = kinds("ConfigMap");
    assertThat(maps).hasSize(1);
    assertThat(map(maps.get(0), "metadata")).containsEntry("name", "ordinal-config");
    Map<String, String> data = new LinkedHashMap<>();
    map(maps.get(0), "data").forEach((k, v) -> data.put(k, String.valueOf(v)));
    return data;
  }

  private static Map<String, Object> container(Map<String, Object> deployment) {
    List<Object> containers =
        list(map(map(map(deployment, "spec"), "template"), "spec"), "containers");
    assertThat(containers).hasSize(1);
    return cast(containers.get(0));
  }

  /** Compose durations as this file writes them: whole seconds, {@code 75s}. */
  private static long seconds(String text) {
    assertThat(text).matches("\\d+s");
    return Long.parseLong(text.substring(0, text.length() - 1));
  }

  private static Map<String, Object> map(Map<String, Object> parent, String key) {
    assertThat(parent).containsKey(key);
    return cast(parent.get(key));
  }

  @SuppressWarnings("unchecked")
  private static <T> List<T> list(Map<String, Object> parent, String key) {
    assertThat(parent).containsKey(key);
    return (List<T>) parent.get(key);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> cast(Object o) {
    assertThat(o).isInstanceOf(Map.class);
    return (Map<String, Object>) o;
  }
}
