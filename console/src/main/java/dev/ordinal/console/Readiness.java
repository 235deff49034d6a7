package dev.ordinal.console;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/**
 * Each configured service's {@code GET /health/ready} (its status, or why it did not answer) and
 * what its {@code GET /metrics} says of its relay role, acknowledgement latency and skipped
 * redeliveries ({@link ServiceMetrics}).
 */
final class Readiness {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final List<URI> services;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();

  Readiness(List<URI> services) {
    this.services = services;
  }

  void read(ArrayNode into) throws InterruptedException {
    for (URI base : services) {
      ObjectNode o = into.addObject();
      o.put("url", base.toString());
      URI ready = base.resolve("/health/ready");
      try {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(ready).timeout(TIMEOUT).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode body = JSON.readTree(r.body());
        o.put("service", body.path("service").asText(null));
        o.put("ready", r.statusCode() == 200);
        o.put("status", body.path("status").asText("HTTP " + r.statusCode()));
        HttpResponse<String> metrics =
            http.send(
                HttpRequest.newBuilder(base.resolve("/metrics")).timeout(TIMEOUT).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (metrics.statusCode() == 200) {
          ServiceMetrics m = ServiceMetrics.of(metrics.body());
          o.put("role", m.role());
          o.put("ackP99Seconds", m.ackP99Seconds());
          o.put("duplicatesSkipped", m.duplicatesSkipped());
        }
      } catch (IOException e) {
        o.putNull("service");
        o.put("ready", false);
        o.put("status", "no answer: " + e.getClass().getSimpleName());
      }
    }
  }
}
