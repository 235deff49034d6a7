package dev.ordinal.order;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ordinal.order.internal.OrderJson;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A small client of the order-service HTTP API (JDK HttpClient, HTTP/1.1), sending a bearer token
 * when it has one.
 */
public final class OrderClient {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final URI base;
  private final String bearerToken;
  private final HttpClient http;

  /** A client without a token: for a service started with {@code --auth none}. */
  public OrderClient(URI base) {
    this(base, null);
  }

  /** A client sending {@code Authorization: Bearer <bearerToken>} (none when it is null). */
  public OrderClient(URI base, String bearerToken) {
    this.base = base;
    this.bearerToken = bearerToken;
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
  }

  /**
   * Posts {@code order}; returns the HTTP status and body.
   *
   * @param idempotencyKey sent as {@code Idempotency-Key}, or null
   */
  public HttpResponse<String> place(NewOrder order, String idempotencyKey)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(base.resolve("/orders"))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(toJson(order)));
    if (idempotencyKey != null) {
      b.header(OrderHttpServer.IDEMPOTENCY_KEY, idempotencyKey);
    }
    if (bearerToken != null) {
      b.header(OrderHttpServer.AUTHORIZATION, "Bearer " + bearerToken);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static String toJson(NewOrder order) {
    ObjectNode n = JSON.createObjectNode();
    n.put("customerId", order.customerId());
    n.put("currency", order.currency());
    n.put("channel", order.channel().wireName());
    if (order.invoiceSeries() != null) {
      n.put("invoiceSeries", order.invoiceSeries());
    }
    OrderJson.lines(n.putArray("lines"), order.lines());
    return n.toString();
  }
}
