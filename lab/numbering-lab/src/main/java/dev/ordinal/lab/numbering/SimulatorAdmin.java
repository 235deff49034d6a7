package dev.ordinal.lab.numbering;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The simulators' admin endpoints ({@code PUT /admin/faults}, {@code GET /admin/stats}, see {@code
 * docs/SIMULATORS.md}): the lab sets the faults it wants and reads what the integrator and the
 * gateway saw, over HTTP like any client, so it needs nothing from the module that runs them.
 */
final class SimulatorAdmin {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private final URI integrator;
  private final URI gateway;
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT).build();

  SimulatorAdmin(URI integrator, URI gateway) {
    this.integrator = integrator;
    this.gateway = gateway;
  }

  /** What the integrator counted so far; subtract two of them to get one strategy's share. */
  record IntegratorStats(
      long calls, long accepted, long duplicateAttempts, long transientFailures, long rejections) {
    IntegratorStats minus(IntegratorStats before) {
      return new IntegratorStats(
          calls - before.calls,
          accepted - before.accepted,
          duplicateAttempts - before.duplicateAttempts,
          transientFailures - before.transientFailures,
          rejections - before.rejections);
    }
  }

  void integratorFaults(LabConfig config) {
    ObjectNode body = JSON.createObjectNode();
    body.put("latencyMinMs", config.latencyMin().toMillis());
    body.put("latencyMaxMs", config.latencyMax().toMillis());
    body.put("transientFailureRate", config.transientFailureRate());
    body.put("rejectionRate", config.rejectionRate());
    body.put("timeoutRate", 0.0);
    body.put("droppedAfterAcceptRate", 0.0);
    body.put("lateAcceptRate", 0.0);
    put(integrator.resolve("/admin/faults"), body);
  }

  /** A fast gateway without faults: the race is the consumer's, not the gateway's. */
  void gatewayWithoutFaults() {
    ObjectNode body = JSON.createObjectNode();
    body.put("latencyMinMs", 2);
    body.put("latencyMaxMs", 10);
    body.put("transientFailureRate", 0.0);
    body.put("droppedAfterCaptureRate", 0.0);
    put(gateway.resolve("/admin/faults"), body);
  }

  IntegratorStats integratorStats() {
    JsonNode n = get(integrator.resolve("/admin/stats"));
    JsonNode injected = n.path("injected");
    return new IntegratorStats(
        n.path("calls").asLong(),
        n.path("accepted").asLong(),
        n.path("duplicateAttempts").asLong(),
        injected.path("TRANSIENT_FAILURE").asLong(),
        injected.path("REJECTION").asLong());
  }

  /** Distinct charges the gateway made so far (one per idempotency key). */
  long gatewayCharges() {
    return get(gateway.resolve("/admin/stats")).path("charges").asLong();
  }

  private void put(URI uri, ObjectNode body) {
    send(
        HttpRequest.newBuilder(uri)
            .timeout(TIMEOUT)
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(body.toString()))
            .build());
  }

  private JsonNode get(URI uri) {
    try {
      return JSON.readTree(send(HttpRequest.newBuilder(uri).timeout(TIMEOUT).GET().build()));
    } catch (IOException e) {
      throw new LabException("Unreadable answer from " + uri + ": " + e.getMessage(), e);
    }
  }

  private String send(HttpRequest request) {
    try {
      HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new LabException(
            request.method()
                + " "
                + request.uri()
                + " answered "
                + r.statusCode()
                + ": "
                + r.body()
                + " (is it one of Ordinal's simulators?)",
            null);
      }
      return r.body();
    } catch (IOException e) {
      throw new LabException(
          "Cannot reach the simulator at " + request.uri() + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LabException("Interrupted while calling " + request.uri(), e);
    }
  }
}
