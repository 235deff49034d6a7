package dev.ordinal.lab.demo;

import static dev.ordinal.messaging.db.Tables.OUTBOX;
import static dev.ordinal.order.db.Tables.IDEMPOTENCY_KEY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordinal.order.OrderHttpServer;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./ordinal order-service} in a JVM of its own, as an operator runs it: the outbox retention
 * it is given really runs, expired idempotency keys are deleted, and both show on its management
 * port, as does the size of the HTTP API's thread pool it is given; with {@code --auth none} it
 * prints one warning line.
 */
@ExtendWith(OrdinalStackExtension.class)
class OrderServiceCommandIT {
  static final ObjectMapper JSON = new ObjectMapper();
  final HttpClient http = HttpClient.newHttpClient();

  /** This test's home directory: its stack settings, the service's output. */
  @TempDir Path home;

  /** Order-service on {@code schema}, its API on {@code port}, ready. */
  private ServiceProcess start(TestNamespace ns, String schema, int port, String... options)
      throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of("order-service", "--schema", schema, "--port", "" + port, "--auth", "none"));
    args.addAll(List.of(options));
    return ProductProcesses.ready(ns, home, "order-service", args);
  }

  private HttpResponse<String> post(int port, String key) throws Exception {
    return post(http, port, key);
  }

  /** POST /orders of one order, under {@code key}. */
  static HttpResponse<String> post(HttpClient http, int port, String key) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders"))
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", key)
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"customerId\":\"c-1\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"A\","
                        + "\"quantity\":1,\"unitPrice\":\"9.90\"}]}"))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /**
   * The product's command never starts servers of its own: in a JVM of its own with no server set,
   * it exits 2 with one sentence naming the settings and starts nothing (no stack directory).
   */
  @Test
  void withNoServersConfiguredTheCommandRefusesAndStartsNothing() throws Exception {
    ProductProcesses.Exited orders =
        ProductProcesses.exited(
            home,
            Map.of(),
            "order-service",
            ("order-service --auth none --port " + DemoCluster.freePort())
                .concat(" --management-port " + DemoCluster.freePort())
                .split(" "));
    assertThat(orders.status()).isEqualTo(2);
    assertThat(orders.lines())
        .filteredOn(l -> l.startsWith("ordinal:"))
        .containsExactly(
            "ordinal: order-service needs a PostgreSQL server: set ORDINAL_DB_URL (with"
                + " ORDINAL_DB_USER and ORDINAL_DB_PASSWORD) or db.url in the ORDINAL_CONFIG file"
                + " (./ordinal up starts a local stack to point it at).");
    assertThat(home.resolve("stack")).as("no stack was started").doesNotExist();
  }

  private static String get(ServiceProcess p, String path) throws Exception {
    return ProductProcesses.get(p, path);
  }

  /** The names of the loops a readiness answer lists, in its order. */
  private static List<String> loopNames(JsonNode health) {
    List<String> loops = new ArrayList<>();
    health.get("loops").forEach(l -> loops.add(l.get("name").asText()));
    return loops;
  }

  private static DSLContext db(TestNamespace ns, String schema) {
    return DSL.using(ns.dataSource(), SQLDialect.POSTGRES);
  }

  private static int count(DSLContext dsl, String schema, String table) {
    return dsl.fetchCount(DSL.table(DSL.name(schema, table)));
  }

  @Test
  void afterAgeRetentionEmptiesTheOutboxAndExpiredIdempotencyKeysAreDeleted(TestNamespace ns)
      throws Exception {
    String schema = ns.schema("orders_after_age");
    int port = DemoCluster.freePort();
    ServiceProcess p =
        start(
            ns,
            schema,
            port,
            "--outbox-retention",
            "after-age",
            "--outbox-retention-age",
            "PT1S",
            "--idempotency-key-retention",
            "PT1S");
    try {
      // started with --auth none: the command says so on the console, once
      await()
          .atMost(Duration.ofSeconds(15))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  java.nio.file.Files.readAllLines(p.outputFile()).stream()
                      .filter(l -> l.startsWith("ordinal: WARNING: "))
                      .toList()
                      .equals(List.of("ordinal: WARNING: " + OrderHttpServer.UNAUTHENTICATED)));
      DSLContext dsl = db(ns, schema);
      assertThat(post(port, "key-1").statusCode()).isEqualTo(201);
      long placedAt = System.nanoTime();
      assertThat(count(dsl, schema, OUTBOX.getName())).isEqualTo(1);
      assertThat(count(dsl, schema, IDEMPOTENCY_KEY.getName())).isEqualTo(1);
      // what a CDC relay writes once it has durably published the order (no relay runs here):
      // after-age deletes no row a relay has not published
      dsl.insertInto(DSL.table(DSL.name(schema, "outbox_relayed")))
          .columns(DSL.field(DSL.name("relay")), DSL.field(DSL.name("relayed_through")))
          .values(
              DSL.val("ordinal_test_offsets"),
              DSL.currentOffsetDateTime().plus(DSL.inline(0.01))) // about 15 minutes on
          .execute();

      await()
          .atMost(Duration.ofSeconds(15))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> count(dsl, schema, OUTBOX.getName()) == 0);
      await()
          .atMost(Duration.ofSeconds(15).minusNanos(System.nanoTime() - placedAt))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> count(dsl, schema, IDEMPOTENCY_KEY.getName()) == 0);

      String metrics = get(p, "/metrics");
      assertThat(metrics)
          .contains("ordinal_outbox_retention_deleted_total{mode=\"AFTER_AGE\"} 1.0")
          .contains("ordinal_idempotency_keys_deleted_total 1.0")
          .contains("ordinal_loop_up{loop=\"outbox-retention\",service=\"order-service\"} 1.0")
          .contains(
              "ordinal_loop_up{loop=\"idempotency-key-retention\",service=\"order-service\"} 1.0");
      JsonNode health = JSON.readTree(get(p, "/health/ready"));
      assertThat(health.get("status").asText()).isEqualTo("UP");
      assertThat(loopNames(health))
          .containsExactly("outbox-retention", "idempotency-key-retention");
    } finally {
      p.stop(Duration.ofSeconds(30));
    }
    assertThat(p.exitStatus()).as("exit status after SIGTERM").isZero();
  }

  @Test
  void deleteOnWriteLeavesTheOutboxEmptyAtOnce(TestNamespace ns) throws Exception {
    String schema = ns.schema("orders_on_write");
    int port = DemoCluster.freePort();
    ServiceProcess p =
        start(ns, schema, port, "--outbox-retention", "delete-on-write", "--http-threads", "24");
    try {
      DSLContext dsl = db(ns, schema);
      assertThat(post(port, "key-2").statusCode()).isEqualTo(201);
      assertThat(count(dsl, schema, OUTBOX.getName())).isZero();
      assertThat(count(dsl, schema, "orders")).isEqualTo(1);
      assertThat(loopNames(JSON.readTree(get(p, "/health/ready"))))
          .containsExactly("idempotency-key-retention");
      // the API's Jetty pool is the one --http-threads sized, and its meters are served
      assertThat(get(p, "/metrics").lines().filter(l -> l.startsWith("jetty_threads_config_max")))
          .singleElement()
          .asString()
          .endsWith(" 24.0");
    } finally {
      p.stop(Duration.ofSeconds(30));
    }
    assertThat(p.exitStatus()).isZero();
  }
}
