package dev.ordinal.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordinal.billing.BillingService;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.ops.replay.ExecutedReplay;
import dev.ordinal.ops.replay.ReplayExecutor;
import dev.ordinal.ops.replay.ReplayLog;
import dev.ordinal.ops.replay.ReplayPlanner;
import dev.ordinal.ops.replay.ReplayRequest;
import dev.ordinal.ops.replay.ReplayTarget;
import dev.ordinal.order.ApiAuth;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestKafka;
import dev.ordinal.testkit.TestNamespace;
import dev.ordinal.testkit.Tokens;
import dev.ordinal.testkit.TopicReads;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;

/**
 * The console behind the order API's authentication, with and without {@code --allow-actions}, on
 * the shared embedded stack: five dead letters of two errors. In headless Chromium the page asks
 * for a token, then shows the letters by error, and its re-drive is a dry run that changes nothing
 * until Execute, which produces exactly the three letters of one error back to their topic and
 * records them; a discard over the API leaves the page with the other error gone. Over HTTP: no
 * token 401, a token without the console's scope 403, an action with a read scope 403, an action on
 * a read-only console 403 (one sentence), from another origin 403, not JSON 415 — nothing changed.
 * And each replay of the log is shown with its report, as {@code ./ordinal replay --report} gives
 * it, until it is final.
 */
@ExtendWith(OrdinalStackExtension.class)
class ConsoleActionsIT {
  private static final Duration WITHIN = Duration.ofSeconds(60);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TIMEOUT = "integrator timed out";
  private static final String BAD = "bad payload";
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @Test
  void actionsNeedTheFlagTheScopeAndADryRunFirstAndChangeExactlyWhatTheyShow(
      TestNamespace ns, @TempDir Path dir) throws Exception {
    String bootstrap = ns.stack().kafkaBootstrap();
    String schema = ns.schema("billing");
    String topic = ns.topic("order");
    String dlq = topic + ".dlq";
    DSLContext dsl = DSL.using(ns.dataSource(), SQLDialect.POSTGRES);
    BillingService.migrate(ns.dataSource(), schema);
    Topics.ensure(bootstrap, topic, 1);
    Topics.ensure(bootstrap, dlq, 1);
    try (KafkaProducer<String, String> producer = TestKafka.producer(bootstrap)) {
      for (int i = 1; i <= 5; i++) {
        ProducerRecord<String, String> r =
            new ProducerRecord<>(dlq, 0, "order-" + i, "{\"n\":" + i + "}");
        header(r, MessageHeaders.MESSAGE_ID, "m-" + i);
        header(r, MessageHeaders.DLQ_TOPIC, topic);
        header(r, MessageHeaders.DLQ_PARTITION, "0");
        header(r, MessageHeaders.DLQ_OFFSET, Integer.toString(i - 1));
        header(r, MessageHeaders.DLQ_ERROR, i <= 3 ? TIMEOUT : BAD);
        producer.send(r).get();
      }
    }
    Tokens tokens = new Tokens();
    Path jwks = tokens.writeJwks(dir);
    DatabaseSettings db =
        new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword());
    ConsoleSettings.Builder settings =
        ConsoleSettings.builder(db, KafkaClients.of(bootstrap))
            .set(ConsoleSettings.PORT, 0)
            .set(ConsoleSettings.MANAGEMENT_PORT, 0)
            .set(ConsoleSettings.OUTBOX_SCHEMAS, List.of(schema))
            .set(ConsoleSettings.BILLING_SCHEMA, schema)
            .set(ConsoleSettings.AUTH, "jwt")
            .set(ApiAuth.JWT_ISSUER, Tokens.ISSUER)
            .set(ApiAuth.JWT_AUDIENCE, Tokens.AUDIENCE)
            .set(ApiAuth.JWKS_FILE, jwks.toString());
    String reader = tokens.token("reader", ConsoleSettings.SCOPE_READ);
    String operator =
        tokens.token("operator", ConsoleSettings.SCOPE_READ, ConsoleSettings.SCOPE_ACT);
    String body = "{\"topic\":\"" + dlq + "\",\"error\":\"" + TIMEOUT + "\",\"execute\":true}";

    try (ConsoleServer readOnly = ConsoleServer.start(settings.build())) {
      HttpResponse<String> r = post(readOnly, "/api/dlq/redrive", operator, body, null);
      assertThat(r.statusCode()).isEqualTo(403);
      assertThat(JSON.readTree(r.body()).get("detail").asText())
          .isEqualTo(
              "The console is read-only: start it with --allow-actions to re-drive or discard"
                  + " dead letters.");
    }

    WebDriver browser = null;
    try (ConsoleServer console =
        ConsoleServer.start(settings.set(ConsoleSettings.ALLOW_ACTIONS, true).build())) {
      HttpResponse<String> anonymous = get(console, "/api/pipe", null);
      assertThat(anonymous.statusCode()).isEqualTo(401);
      assertThat(anonymous.headers().firstValue("WWW-Authenticate").orElseThrow())
          .startsWith("Bearer realm=");
      assertThat(get(console, "/api/pipe", tokens.token("x", "orders:read")).statusCode())
          .isEqualTo(403);
      assertThat(post(console, "/api/dlq/redrive", reader, body, null).statusCode()).isEqualTo(403);
      assertThat(
              post(console, "/api/dlq/redrive", operator, body, "http://elsewhere.test")
                  .statusCode())
          .isEqualTo(403);
      HttpResponse<String> text =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(console.url() + "api/dlq/redrive"))
                  .header("Authorization", "Bearer " + operator)
                  .header("Content-Type", "text/plain")
                  .POST(HttpRequest.BodyPublishers.ofString(body))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(text.statusCode()).isEqualTo(415);
      assertThat(recordsIn(bootstrap, topic)).as("nothing re-driven by a refused action").isZero();
      assertThat(logRows(dsl, schema)).as("nothing recorded").isZero();

      browser = Chromium.start(dir.resolve("profile"));
      browser.get(console.url());
      WebDriver page = browser;
      await()
          .atMost(WITHIN)
          .until(() -> Chromium.figures(page).getOrDefault("sign-in", "").startsWith("Send a"));
      js(browser, "document.getElementById('token').value = arguments[0];", operator);
      js(browser, "document.getElementById('sign-in-button').click();");
      Map<String, String> before =
          await()
              .atMost(WITHIN)
              .until(() -> Chromium.figures(page), f -> "5".equals(f.get("dlq:" + dlq)));
      System.out.println("console dead letters: " + before);
      assertThat(before)
          .containsEntry("mode", "actions allowed")
          .containsEntry("dlq:" + dlq + ":letters", "5")
          .containsEntry("dlq:" + dlq + ":error:" + TIMEOUT, "3")
          .containsEntry("dlq:" + dlq + ":error:" + BAD, "2");

      click(browser, "[data-action='redrive:" + dlq + ":" + TIMEOUT + "']");
      String dryRun = awaitResult(browser, "Dry run,");
      assertThat(dryRun).startsWith("Dry run, nothing changed: 3 would be re-driven, 0 refused");
      assertThat(recordsIn(bootstrap, topic)).as("a dry run produces nothing").isZero();
      assertThat(logRows(dsl, schema)).as("a dry run records nothing").isZero();
      Chromium.screenshot(browser, "console-actions.png");

      click(browser, "#execute-action");
      String executed = awaitResult(browser, "Executed");
      System.out.println("console action: " + executed);
      assertThat(executed).startsWith("Executed: 3 re-driven, 0 refused");
      List<ConsumerRecord<String, String>> redriven =
          TopicReads.readToEnd(bootstrap, List.of(new TopicPartition(topic, 0)), WITHIN);
      assertThat(redriven)
          .extracting(c -> MessageHeaders.get(c.headers(), MessageHeaders.MESSAGE_ID).orElse(null))
          .containsExactly("m-1", "m-2", "m-3");
      assertThat(
              dsl.selectDistinct(DSL.field("redriven_by", String.class))
                  .from(DSL.table(DSL.name(schema, "dlq_redrive_log")))
                  .where(DSL.field("action", String.class).eq("redrive"))
                  .fetch(0, String.class))
          .containsExactly("console:operator");
      assertThat(logRows(dsl, schema)).isEqualTo(3);

      String discard = "{\"topic\":\"" + dlq + "\",\"error\":\"" + BAD + "\",\"execute\":true}";
      HttpResponse<String> discarded = post(console, "/api/dlq/discard", operator, discard, null);
      assertThat(discarded.statusCode()).isEqualTo(200);
      assertThat(JSON.readTree(discarded.body()).get("discarded").asInt()).isEqualTo(2);
      Map<String, String> after =
          await()
              .atMost(WITHIN)
              .until(
                  () -> Chromium.figures(page), f -> "3".equals(f.get("dlq:" + dlq + ":letters")));
      assertThat(after)
          .containsEntry("dlq:" + dlq, "5")
          .containsEntry("dlq:" + dlq + ":error:" + TIMEOUT, "3")
          .doesNotContainKey("dlq:" + dlq + ":error:" + BAD);

      // the console's own health: ready while its history loop runs and both servers answer
      URI ready = URI.create("http://127.0.0.1:" + console.managementPort() + "/health/ready");
      HttpResponse<String> health =
          await()
              .atMost(WITHIN)
              .until(
                  () ->
                      HTTP.send(
                          HttpRequest.newBuilder(ready).build(),
                          HttpResponse.BodyHandlers.ofString()),
                  r -> r.statusCode() == 200);
      JsonNode loops = JSON.readTree(health.body()).get("loops");
      assertThat(loops).hasSize(1);
      assertThat(loops.get(0).get("name").asText()).isEqualTo("history");
      assertThat(loops.get(0).get("state").asText()).isEqualTo("RUNNING");
      JsonNode history = JSON.readTree(get(console, "/api/history", reader).body());
      assertThat(history.get("keepSeconds").asInt()).isEqualTo(3600);
      assertThat(history.get("lag").get("t").size()).isPositive();
    } finally {
      if (browser != null) {
        browser.quit();
      }
    }
  }

  @Test
  void eachReplayIsShownWithItsReportUntilItIsFinal(TestNamespace ns) throws Exception {
    String bootstrap = ns.stack().kafkaBootstrap();
    // the namespace's own schema: its data source's current schema, which ReplayLog writes to
    String schema = ns.schema();
    String topic = ns.topic("replayed");
    String group = ns.group("billing");
    BillingService.migrate(ns.dataSource(), schema);
    ReplayLog.migrate(ns.dataSource(), schema);
    DSLContext dsl = DSL.using(ns.dataSource(), SQLDialect.POSTGRES);
    Topics.ensure(bootstrap, topic, 1);
    try (KafkaProducer<String, String> producer = TestKafka.producer(bootstrap)) {
      for (int i = 0; i < 3; i++) {
        ProducerRecord<String, String> r = new ProducerRecord<>(topic, 0, "k" + i, "{}");
        header(r, MessageHeaders.MESSAGE_ID, "r-" + i);
        producer.send(r).get();
      }
    }
    commit(bootstrap, group, topic, 3);
    ExecutedReplay replay;
    try (Admin admin = KafkaClients.of(bootstrap).admin("test", Map.of())) {
      ReplayPlanner planner = new ReplayPlanner(admin, Clock.systemUTC(), WITHIN);
      replay =
          new ReplayExecutor(admin, new ReplayLog(dsl), Clock.systemUTC(), WITHIN)
              .execute(
                  planner.plan(
                      ReplayRequest.allPartitions(group, topic, new ReplayTarget.ToEarliest())),
                  "tester",
                  "billing");
    }
    DatabaseSettings db =
        new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword());
    try (ConsoleServer console =
        ConsoleServer.start(
            ConsoleSettings.builder(db, KafkaClients.of(bootstrap))
                .set(ConsoleSettings.PORT, 0)
                .set(ConsoleSettings.MANAGEMENT_PORT, 0)
                .set(ConsoleSettings.OUTBOX_SCHEMAS, List.of(schema))
                .set(ConsoleSettings.BILLING_SCHEMA, schema)
                .build())) {
      JsonNode before = replayShown(console, replay.id());
      System.out.println("console replay before the group read it again: " + before);
      assertThat(before.get("redelivered").asLong()).isEqualTo(3);
      assertThat(before.get("report").get("read").asLong()).isZero();
      assertThat(before.get("report").get("final").asBoolean()).isFalse();

      // the group reads the three again: one is a new effect (its inbox row is new), two were
      // applied before (no new row): duplicates
      dsl.insertInto(DSL.table(DSL.name(schema, "inbox")))
          .columns(
              DSL.field("message_id"),
              DSL.field("consumer"),
              DSL.field("topic"),
              DSL.field("partition_no"),
              DSL.field("record_offset"))
          .values("r-1", "billing", topic, 0, 1L)
          .execute();
      commit(bootstrap, group, topic, 3);
      JsonNode after =
          await()
              .atMost(WITHIN)
              .until(
                  () -> replayShown(console, replay.id()),
                  r -> r.get("report").get("final").asBoolean());
      System.out.println("console replay after: " + after);
      assertThat(after.get("report").get("read").asLong()).isEqualTo(3);
      assertThat(after.get("report").get("duplicates").asLong()).isEqualTo(2);
      assertThat(after.get("report").get("newEffects").asLong()).isEqualTo(1);
      assertThat(after.get("report").get("consumer").asText()).isEqualTo("billing");
    }
  }

  private static JsonNode replayShown(ConsoleServer console, long id) throws Exception {
    for (JsonNode r : JSON.readTree(get(console, "/api/pipe", null).body()).get("replays")) {
      if (r.get("id").asLong() == id) {
        return r;
      }
    }
    throw new AssertionError("replay " + id + " is not shown");
  }

  /** Commits {@code offset} on partition 0 of {@code topic} for {@code group}. */
  private static void commit(String bootstrap, String group, String topic, long offset) {
    try (var consumer =
        new org.apache.kafka.clients.consumer.KafkaConsumer<String, String>(
            Map.of(
                "bootstrap.servers",
                bootstrap,
                "group.id",
                group,
                "key.deserializer",
                StringDeserializer.class.getName(),
                "value.deserializer",
                StringDeserializer.class.getName()))) {
      consumer.commitSync(
          Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(offset)), WITHIN);
    }
  }

  private static void header(ProducerRecord<String, String> r, String name, String value) {
    r.headers().add(name, MessageHeaders.encode(value));
  }

  private static long recordsIn(String bootstrap, String topic) {
    return TopicReads.readToEnd(bootstrap, List.of(new TopicPartition(topic, 0)), WITHIN).size();
  }

  private static int logRows(DSLContext dsl, String schema) {
    if (dsl.fetchValue(
            DSL.field("to_regclass({0})", String.class, DSL.val(schema + ".dlq_redrive_log")))
        == null) {
      return 0;
    }
    return dsl.fetchCount(DSL.table(DSL.name(schema, "dlq_redrive_log")));
  }

  private static void js(WebDriver browser, String script, Object... args) {
    ((JavascriptExecutor) browser).executeScript(script, args);
  }

  /** Clicks the element {@code selector} finds, found and clicked in one script. */
  private static void click(WebDriver browser, String selector) {
    js(browser, "document.querySelector(arguments[0]).click();", selector);
  }

  private static String awaitResult(WebDriver browser, String start) {
    return await()
        .atMost(WITHIN)
        .until(
            () -> Chromium.figures(browser).getOrDefault("action-result", ""),
            t -> t.startsWith(start));
  }

  private static HttpResponse<String> get(ConsoleServer console, String path, String token)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(console.url() + path.substring(1)));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return HTTP.send(b.GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> post(
      ConsoleServer console, String path, String token, String body, String origin)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(console.url() + path.substring(1)))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (origin != null) {
      b.header("Origin", origin);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
