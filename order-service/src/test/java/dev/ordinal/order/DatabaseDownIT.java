package dev.ordinal.order;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordinal.lab.devstack.ServerControl;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * With the real embedded PostgreSQL stopped under a running order-service, a request is answered
 * 503 with {@code Retry-After} and a problem body (not 500), within the pool's connection timeout;
 * once PostgreSQL is back, orders are placed again without a restart.
 */
@ExtendWith(OrdinalStackExtension.class)
class DatabaseDownIT {
  static final ObjectMapper JSON = new ObjectMapper();

  final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  HttpResponse<String> send(int port, String path, boolean post) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(30));
    if (post) {
      b.header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(TestOrderService.ORDER));
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void withPostgresStoppedARequestGets503WithRetryAfterAndOrdersArePlacedOnceItIsBack(
      TestNamespace ns) throws Exception {
    ServerControl control = ns.stack().control().orElseThrow();
    DatabaseSettings db = TestOrderService.database(ns);
    try (OrderServiceApp app = TestOrderService.start(db, ns, ApiAuth.none(), b -> b)) {
      HttpResponse<String> first = send(app.port(), "/orders", true);
      assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
      String id = JSON.readTree(first.body()).get("orderId").asText();

      control.stopPostgres();
      try {
        for (String path : new String[] {"/orders", "/orders/" + id}) {
          long started = System.nanoTime();
          HttpResponse<String> r = send(app.port(), path, path.equals("/orders"));
          Duration took = Duration.ofNanos(System.nanoTime() - started);
          assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(503);
          assertThat(r.headers().firstValue("Retry-After")).hasValue("5");
          assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
          JsonNode body = JSON.readTree(r.body());
          assertThat(body.get("status").asInt()).isEqualTo(503);
          assertThat(body.get("title").asText()).isEqualTo("Service unavailable");
          assertThat(body.get("detail").asText())
              .isEqualTo(
                  "The database does not answer; try again in 5 s (with the same"
                      + " Idempotency-Key, an order is placed at most once).");
          // bounded by the pool's connection timeout (5 s), not by a TCP timeout
          assertThat(took).isLessThan(Duration.ofSeconds(15));
        }
      } finally {
        control.startPostgres();
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> send(app.port(), "/orders", true).statusCode() == 201);
      assertThat(send(app.port(), "/orders/" + id, false).statusCode()).isEqualTo(200);
    }
  }
}
