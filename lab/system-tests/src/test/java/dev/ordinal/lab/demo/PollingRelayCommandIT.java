package dev.ordinal.lab.demo;

import static dev.ordinal.messaging.db.Tables.OUTBOX;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.messaging.outbox.OutboxEvent;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import dev.ordinal.testkit.TopicReads;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./ordinal relay --mode polling} as an operator runs it, in a JVM of its own: ready with
 * its loop named, it publishes and marks rows, stops on SIGTERM with status 0, refuses a CDC option
 * in one sentence, and with order-service's {@code --outbox-retention after-dispatch} keeps the
 * outbox bounded.
 */
@ExtendWith(OrdinalStackExtension.class)
class PollingRelayCommandIT {
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path home;

  @Test
  void theCommandIsReadyNamingItsLoopPublishesTenRowsOnceAndStopsWithStatusZero(TestNamespace ns)
      throws Exception {
    String schema = ns.schema("orders_cmd");
    String topic = ns.topic("parcel");
    Topics.ensure(ns.stack().kafkaBootstrap(), topic, 3);
    try (HikariDataSource pool = pool(ns, schema)) {
      Migrations.applyOutbox(pool, schema);
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      ServiceProcess relay =
          ProductProcesses.start(ns, home, schema, "cmd", "--poll-interval", "100ms");
      Set<String> written = new HashSet<>();
      try {
        JsonNode health = JSON.readTree(ProductProcesses.get(relay, "/health/ready"));
        assertThat(health.get("status").asText()).isEqualTo("UP");
        assertThat(health.get("loops")).hasSize(1);
        assertThat(health.get("loops").get(0).get("name").asText())
            .isEqualTo("polling-relay-" + schema);
        assertThat(health.get("loops").get(0).get("state").asText()).isEqualTo("RUNNING");

        Outbox outbox = new Outbox(Clock.systemUTC());
        for (int i = 0; i < 10; i++) {
          OutboxEvent e = new OutboxEvent("parcel", "p-" + i, "ParcelSent", "{\"n\": " + i + "}");
          written.add(dsl.transactionResult(c -> outbox.append(c.dsl(), e)).toString());
        }
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(100))
            .until(() -> dsl.fetchCount(OUTBOX, OUTBOX.DISPATCHED_AT.isNotNull()) == 10);
        assertThat(ProductProcesses.metric(relay, "ordinal_relay_polling_events_total{", ""))
            .isEqualTo(10.0);
      } finally {
        relay.stop(Duration.ofSeconds(30));
      }
      assertThat(relay.exitStatus()).as("exit status after SIGTERM").isZero();
      List<ConsumerRecord<String, String>> records = readTopic(ns, topic);
      assertThat(records).hasSize(10);
      assertThat(records)
          .extracting(r -> MessageHeaders.get(r.headers(), MessageHeaders.MESSAGE_ID).orElseThrow())
          .containsExactlyInAnyOrderElementsOf(written);
    }
  }

  @Test
  void aCdcOptionWithModePollingIsRefusedInOneSentenceWithStatusTwo(TestNamespace ns)
      throws Exception {
    ProductProcesses.Exited relay =
        ProductProcesses.exited(
            home,
            ns.serverEnvironment(),
            "relay",
            "relay --mode polling --slot my_slot --management-port -1".split(" "));
    assertThat(relay.status()).isEqualTo(2);
    // the sentence, then the command's usage
    assertThat(relay.lines().get(0))
        .isEqualTo(
            "--slot is an option of the cdc relay, not of --mode polling: remove it, or choose the"
                + " other --mode.");
  }

  @Test
  void afterDispatchRetentionDeletesWhatThePollingRelayPublishedAndKeepsTheRest(TestNamespace ns)
      throws Exception {
    String schema = ns.schema("orders_dispatch");
    int port = DemoCluster.freePort();
    ServiceProcess orders =
        ProductProcesses.ready(
            ns,
            home,
            "order-service",
            List.of(
                "order-service",
                "--schema",
                schema,
                "--port",
                "" + port,
                "--auth",
                "none",
                "--outbox-retention",
                "after-dispatch",
                "--outbox-retention-age",
                "PT1S"));
    ServiceProcess relay = null;
    try (HikariDataSource pool = pool(ns, schema)) {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      relay = ProductProcesses.start(ns, home, schema, "kept", "--poll-interval", "100ms");
      for (int i = 0; i < 5; i++) {
        assertThat(post(port, "first-" + i)).isEqualTo(201);
      }
      // published, marked, and deleted a second after
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> dsl.fetchCount(OUTBOX) == 0);
      assertThat(deleted(orders)).isEqualTo(5.0);

      relay.stop(Duration.ofSeconds(30));
      for (int i = 0; i < 3; i++) {
        assertThat(post(port, "second-" + i)).isEqualTo(201);
      }
      // not dispatched: kept through more than one retention run (every 10 s), whatever its age
      await()
          .during(Duration.ofSeconds(12))
          .atMost(Duration.ofSeconds(30))
          .until(() -> dsl.fetchCount(OUTBOX, OUTBOX.DISPATCHED_AT.isNull()) == 3);
      assertThat(deleted(orders)).isEqualTo(5.0);

      relay.start();
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> dsl.fetchCount(OUTBOX) == 0);
      assertThat(deleted(orders)).isEqualTo(8.0);
    } finally {
      if (relay != null) {
        relay.stop(Duration.ofSeconds(30));
      }
      orders.stop(Duration.ofSeconds(30));
    }
    assertThat(readTopic(ns, ns.topic("order"))).hasSize(8);
  }

  private static double deleted(ServiceProcess orders) throws Exception {
    return ProductProcesses.metric(
        orders, "ordinal_outbox_retention_deleted_total{", "AFTER_DISPATCH");
  }

  private static int post(int port, String key) throws Exception {
    return OrderServiceCommandIT.post(HttpClient.newHttpClient(), port, key).statusCode();
  }

  private static HikariDataSource pool(TestNamespace ns, String schema) {
    return new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword())
        .withSchema(schema)
        .pool("polling-cmd-it", 2);
  }

  private static List<ConsumerRecord<String, String>> readTopic(TestNamespace ns, String topic) {
    return TopicReads.readToEnd(
        ns.stack().kafkaBootstrap(),
        IntStream.range(0, 3).mapToObj(p -> new TopicPartition(topic, p)).toList(),
        Duration.ofSeconds(30));
  }
}
