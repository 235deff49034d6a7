package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestKafka;
import dev.ordinal.testkit.TestNamespace;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import picocli.CommandLine;

/** {@code ./ordinal lag} against the real broker. */
@ExtendWith(OrdinalStackExtension.class)
class LagCommandIT {
  static String bootstrap;
  static String topic;
  static String group;
  static Instant oldest;

  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  @BeforeAll
  static void aGroupThreeRecordsBehindOnOnePartition(TestNamespace ns) throws Exception {
    bootstrap = ns.stack().kafkaBootstrap();
    topic = ns.topic("cli");
    group = ns.group("cli");
    Topics.ensure(bootstrap, topic, 2);
    oldest =
        Instant.now()
            .minus(Duration.ofMinutes(30))
            .truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
    try (KafkaProducer<String, String> producer = TestKafka.producer(bootstrap)) {
      for (int i = 0; i < 5; i++) {
        producer
            .send(
                new ProducerRecord<>(
                    topic, 0, oldest.plusSeconds(60L * i).toEpochMilli(), "k", "v" + i))
            .get();
      }
    }
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    offsets.put(new TopicPartition(topic, 0), new OffsetAndMetadata(2));
    offsets.put(new TopicPartition(topic, 1), new OffsetAndMetadata(0));
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      admin.alterConsumerGroupOffsets(group, offsets).all().get();
    }
  }

  private int run(String... args) {
    return command(args).execute(args);
  }

  private CommandLine command(String... args) {
    LagCommand command = new LagCommand();
    command.env = Map.of("ORDINAL_KAFKA_BOOTSTRAP", bootstrap);
    CommandLine cli = new CommandLine(command);
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli;
  }

  /** Runs with {@code args}; asserts exit code 2 and {@code sentence} as the one line on stderr. */
  private void assertRefused(String sentence, String... args) {
    assertThat(run(args)).isEqualTo(2);
    assertThat(err.toString()).isEqualTo("ordinal: " + sentence + System.lineSeparator());
  }

  @Test
  void anUnknownGroupIsOneSentenceAndExitTwo() {
    assertRefused(
        "Consumer group nobody-reads-this does not exist on the Kafka cluster at "
            + bootstrap
            + "; run without --group to list the groups there.",
        "--group",
        "nobody-reads-this");
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void anUnknownTopicIsOneSentenceAndExitTwo() {
    assertRefused(
        "Topic no.such.topic does not exist on the Kafka cluster at " + bootstrap + ".",
        "--group",
        group,
        "--topic",
        "no.such.topic");
  }

  @Test
  void jsonIsOneDocumentWithTheGroupsFiguresAndTimeLag() throws Exception {
    assertThat(run("--group", group, "--json")).isZero();
    assertThat(out.toString().strip().lines()).hasSize(1);
    JsonNode doc = new ObjectMapper().readTree(out.toString());
    JsonNode g = doc.get("groups").get(0);
    assertThat(g.get("group").asText()).isEqualTo(group);
    assertThat(g.get("state").asText()).isEqualTo("Empty");
    assertThat(g.get("totalLag").asLong()).isEqualTo(3);
    JsonNode p0 = g.get("partitions").get(0);
    assertThat(p0.get("committedOffset").asLong()).isEqualTo(2);
    assertThat(p0.get("logEndOffset").asLong()).isEqualTo(5);
    assertThat(p0.get("lag").asLong()).isEqualTo(3);
    // the next record is record 2, two minutes younger than the oldest
    Instant next = oldest.plusSeconds(120);
    assertThat(p0.get("nextRecordTimestamp").asText()).isEqualTo(next.toString());
    double trueAge = Duration.between(next, Instant.now()).toMillis() / 1000.0;
    assertThat(p0.get("lagSeconds").asDouble()).isBetween(trueAge - 1, trueAge + 1);
    JsonNode p1 = g.get("partitions").get(1);
    assertThat(p1.get("lag").asLong()).isZero();
    assertThat(p1.get("status").asText()).isEqualTo("OK");
  }

  @Test
  void watchPrintsANewBlockPerRefreshWhenNotOnATerminal() {
    assertThat(run("--group", group, "--watch", "--interval", "PT0.2S", "--count", "2")).isZero();
    assertThat(out.toString()).doesNotContain(LagCommand.CLEAR_SCREEN);
    assertThat(out.toString().split("Consumer lag at ", -1)).hasSize(3);
    assertThat(out.toString()).contains("GROUP " + group + "  Empty, 0 members  lag 3 records");
  }

  @Test
  void aMetricsPortInUseIsOneSentenceAndExitTwo() throws Exception {
    try (java.net.ServerSocket taken = new java.net.ServerSocket(0)) {
      int port = taken.getLocalPort();
      assertRefused(
          "Port " + port + " is in use (--metrics-port): pick another, or 0 for a free one.",
          "--group",
          group,
          "--watch",
          "--count",
          "1",
          "--metrics-port",
          "" + port);
    }
  }

  @Test
  void watchServesTheSameFiguresAsPrometheusMetrics() throws Exception {
    CompletableFuture<Integer> exit =
        CompletableFuture.supplyAsync(
            () ->
                run(
                    "--group",
                    group,
                    "--watch",
                    "--interval",
                    "PT0.5S",
                    "--count",
                    "20",
                    "--metrics-port",
                    "0"));
    Pattern url = Pattern.compile("http://127.0.0.1:(\\d+)/metrics");
    await().atMost(Duration.ofSeconds(30)).until(() -> url.matcher(err.toString()).find());
    Matcher m = url.matcher(err.toString());
    assertThat(m.find()).isTrue();
    HttpClient http = HttpClient.newHttpClient();
    HttpRequest get = HttpRequest.newBuilder(URI.create(m.group())).build();
    String lagLine =
        "ordinal_consumer_lag_records{group=\""
            + group
            + "\",partition=\"0\",topic=\""
            + topic
            + "\"} 3.0";
    await()
        .atMost(Duration.ofSeconds(15))
        .until(() -> http.send(get, HttpResponse.BodyHandlers.ofString()).body().contains(lagLine));
    String body = http.send(get, HttpResponse.BodyHandlers.ofString()).body();
    // the services' management server: health beside the metrics, the JVM's meters, this machine
    HttpResponse<String> ready =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + m.group(1) + "/health/ready"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
    assertThat(ready.body()).contains("\"service\":\"lag\"").contains("\"up\":true");
    assertThat(body).contains("jvm_memory_used_bytes{");
    assertThat(reachableOnNonLoopback(Integer.parseInt(m.group(1)))).isFalse();
    assertThat(body)
        .contains("ordinal_consumer_lag_seconds{group=\"" + group + "\",partition=\"0\"")
        .contains("ordinal_consumer_group_lag_status{group=\"" + group + "\",status=\"STALLED\"}")
        .contains("ordinal_consumer_group_lag_records{group=\"" + group + "\"} 3.0");
    assertThat(exit.get(60, java.util.concurrent.TimeUnit.SECONDS)).isZero();
  }

  /** Whether something answers on {@code port} of this machine's first non-loopback address. */
  private static boolean reachableOnNonLoopback(int port) throws Exception {
    for (java.net.NetworkInterface n :
        java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces())) {
      for (java.net.InetAddress a : java.util.Collections.list(n.getInetAddresses())) {
        if (!a.isLoopbackAddress() && a instanceof java.net.Inet4Address) {
          try (java.net.Socket s = new java.net.Socket()) {
            s.connect(new java.net.InetSocketAddress(a, port), 1000);
            return true;
          } catch (java.io.IOException refused) {
            return false;
          }
        }
      }
    }
    return false;
  }
}
