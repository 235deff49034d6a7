package dev.ordinal.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ServiceRuntimeTest {
  private final HttpClient http = HttpClient.newHttpClient();

  private HttpResponse<String> get(ServiceRuntime rt, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + rt.managementPort() + path))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void readyFollowsThePhaseTheLoopsAndTheServers() throws Exception {
    AtomicBoolean dbUp = new AtomicBoolean(true);
    try (ServiceRuntime rt =
        new ServiceRuntime("billing", ManagementSettings.local(0), Clock.systemUTC())) {
      assertThat(get(rt, "/health/live").statusCode()).isEqualTo(200);
      assertThat(get(rt, "/health/ready").statusCode()).isEqualTo(503);
      rt.awaitServer(
          new ServerCheck(
              "postgresql",
              "ORDINAL_DB_URL",
              "jdbc:postgresql://db/app",
              () -> {
                if (!dbUp.get()) {
                  throw new ServerUnavailableException("Connection refused");
                }
              }));
      rt.supervisor()
          .start(
              "issuer",
              ctx -> {
                while (ctx.running()) {
                  ctx.healthy();
                  ctx.await(Duration.ofMillis(10));
                }
              });
      rt.started();
      await().atMost(5, TimeUnit.SECONDS).until(() -> get(rt, "/health/ready").statusCode() == 200);
      HttpResponse<String> ready = get(rt, "/health/ready");
      assertThat(ready.body())
          .contains("\"service\":\"billing\"", "\"status\":\"UP\"", "\"name\":\"issuer\"")
          .contains("\"state\":\"RUNNING\"", "\"name\":\"postgresql\"", "\"up\":true");

      dbUp.set(false);
      await().atMost(5, TimeUnit.SECONDS).until(() -> get(rt, "/health/ready").statusCode() == 503);
      assertThat(get(rt, "/health/ready").body())
          .contains("\"up\":false", "Connection refused", "\"setting\":\"ORDINAL_DB_URL\"");
      dbUp.set(true);
      await().atMost(5, TimeUnit.SECONDS).until(() -> get(rt, "/health/ready").statusCode() == 200);

      assertThat(get(rt, "/metrics").body())
          .contains("ordinal_loop_up{loop=\"issuer\",service=\"billing\"} 1.0")
          .contains("ordinal_loop_restarts_total{loop=\"issuer\",service=\"billing\"} 0.0");
    }
  }

  @Test
  void aStartWaitsForAServerThatIsNotThereYetAndFailsAtOnceOnAConfigurationError() {
    AtomicInteger asked = new AtomicInteger();
    Thread starting = Thread.currentThread();
    try (ServiceRuntime rt = relayWithoutManagement()) {
      rt.awaitServer(
          kafka(
              () -> {
                // the readiness checks ask too, on a thread of their own: count the start's
                if (Thread.currentThread() == starting && asked.incrementAndGet() < 3) {
                  throw new ServerUnavailableException("no broker answered");
                }
              }));
      assertThat(asked.get()).isEqualTo(3);
      assertThatThrownBy(
              () ->
                  rt.awaitServer(
                      new ServerCheck(
                          "postgresql",
                          "ORDINAL_DB_USER",
                          "jdbc:postgresql://db/app",
                          () -> {
                            throw new IllegalArgumentException("password authentication failed");
                          })))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("password authentication failed");
    }
  }

  @Test
  void aStopRequestedWhileWaitingEndsTheStart() {
    Thread starting = Thread.currentThread();
    try (ServiceRuntime rt = relayWithoutManagement()) {
      AtomicInteger asked = new AtomicInteger();
      assertThatThrownBy(
              () ->
                  rt.awaitServer(
                      kafka(
                          () -> {
                            if (Thread.currentThread() == starting
                                && asked.incrementAndGet() == 2) {
                              rt.requestStop(); // as Ctrl-C would, while the start waits
                            }
                            throw new ServerUnavailableException("no broker");
                          })))
          .isInstanceOf(ServiceStoppedException.class);
      assertThat(asked.get()).isEqualTo(2);
    }
  }

  @Test
  void aManagementPortInUseIsOneSentenceNamingTheOption() {
    try (ServiceRuntime first =
        new ServiceRuntime("billing", ManagementSettings.local(0), Clock.systemUTC())) {
      int port = first.managementPort();
      assertThatThrownBy(
              () ->
                  new ServiceRuntime("billing", ManagementSettings.local(port), Clock.systemUTC()))
          .isInstanceOf(PortInUseException.class)
          .hasMessage(
              "The management port 127.0.0.1:"
                  + port
                  + " of billing is in use: pick another with --management-port (0 picks a free"
                  + " one).");
    }
  }

  /** A runtime of service "relay" without a management server, on the system clock. */
  private static ServiceRuntime relayWithoutManagement() {
    return new ServiceRuntime("relay", ManagementSettings.off(), Clock.systemUTC());
  }

  /** The check of a Kafka broker at localhost:9092 (ORDINAL_KAFKA_BOOTSTRAP) by {@code probe}. */
  private static ServerCheck kafka(ServerCheck.Probe probe) {
    return new ServerCheck("kafka", "ORDINAL_KAFKA_BOOTSTRAP", "localhost:9092", probe);
  }

  @Test
  void liveAnswers503WhileALoopIsStalled() throws Exception {
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    try (ServiceRuntime rt =
        new ServiceRuntime("relay", ManagementSettings.local(0), Clock.systemUTC())) {
      rt.supervisor().stallAfter(Duration.ofMillis(300));
      rt.supervisor()
          .start(
              "relay-orders",
              ctx -> {
                ctx.healthy();
                release.await();
                while (ctx.running()) {
                  ctx.healthy();
                  ctx.await(Duration.ofMillis(20));
                }
              });
      await().atMost(5, TimeUnit.SECONDS).until(() -> get(rt, "/health/live").statusCode() == 503);
      assertThat(get(rt, "/health/live").body())
          .contains("\"status\":\"DOWN\"", "\"stalled\":[\"relay-orders\"]");
      assertThat(get(rt, "/health/ready").body()).contains("\"state\":\"STALLED\"");
      release.countDown();
      await().atMost(5, TimeUnit.SECONDS).until(() -> get(rt, "/health/live").statusCode() == 200);
    }
  }
}
