package dev.ordinal.billing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

/**
 * The gateway over HTTP ({@code POST /charges} with {@code Idempotency-Key: <order id>}, {@code GET
 * /charges?idempotencyKey=}; a refund with {@code Idempotency-Key: refund-<charge id>}). 402 and
 * the other 4xx (but 408, 409 and 429) are permanent answers; everything else is transient.
 */
public final class HttpPaymentGateway implements PaymentGateway {
  /** The client timeout billing's gateway calls use. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

  private static final ObjectMapper JSON = new ObjectMapper();
  private final URI base;
  private final Duration timeout;
  private final Function<UUID, String> idempotencyKey;
  private final HttpClient http =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(2))
          .build();

  public HttpPaymentGateway(URI base, Duration timeout) {
    this(base, timeout, UUID::toString);
  }

  /**
   * A gateway that sends {@code idempotencyKey.apply(orderId)} as a charge's {@code
   * Idempotency-Key} instead of the order id; everything else is as with {@link
   * #HttpPaymentGateway(URI, Duration)}. Only the order id makes a retried charge safe: this is for
   * showing what another key does (the look-up of {@link #chargeFor} still asks by order id).
   */
  public HttpPaymentGateway(URI base, Duration timeout, Function<UUID, String> idempotencyKey) {
    this.base = base;
    this.timeout = timeout;
    this.idempotencyKey = idempotencyKey;
  }

  @Override
  public String charge(UUID orderId, BigDecimal amount, String currency)
      throws IntegratorException {
    ObjectNode body = JSON.createObjectNode();
    body.put("orderId", orderId.toString());
    body.put("amount", amount.toPlainString());
    body.put("currency", currency);
    HttpRequest request =
        HttpRequest.newBuilder(base.resolve("/charges"))
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", idempotencyKey.apply(orderId))
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
            .build();
    HttpResponse<String> r = send(request, "charging");
    if (r.statusCode() == 200 || r.statusCode() == 201) {
      try {
        return JSON.readTree(r.body()).get("chargeId").asText();
      } catch (IOException | RuntimeException e) {
        throw new IntegratorException.Transient("Unreadable charge answer: " + r.body(), e);
      }
    }
    if (r.statusCode() == 402) {
      throw new IntegratorException.Rejected("The gateway declined the charge: " + r.body());
    }
    if (permanent(r.statusCode())) {
      throw new IntegratorException.Rejected(
          "The gateway refused the charge (" + r.statusCode() + "): " + r.body());
    }
    throw new IntegratorException.Transient("The gateway answered " + r.statusCode(), null);
  }

  /**
   * Sends {@code request}; no answer is transient (for a charge that is safe: the idempotency key
   * makes a second charge impossible).
   */
  private HttpResponse<String> send(HttpRequest request, String doing) throws IntegratorException {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IntegratorException.Transient("The payment gateway did not answer: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IntegratorException.Transient("Interrupted while " + doing, e);
    }
  }

  /**
   * A 4xx other than 408, 409 and 429: the same request will not succeed by being sent again. A 409
   * is a conflict on the idempotency key (a request with the same key still in progress, as
   * gateways answer): the charge may be made, so it is asked again, never taken for a decline.
   */
  static boolean permanent(int status) {
    return status >= 400 && status < 500 && status != 408 && status != 409 && status != 429;
  }

  @Override
  public Optional<String> chargeFor(UUID orderId) throws IntegratorException {
    HttpRequest request =
        HttpRequest.newBuilder(base.resolve("/charges?idempotencyKey=" + orderId))
            .timeout(timeout)
            .GET()
            .build();
    HttpResponse<String> r = send(request, "asking for a charge");
    if (r.statusCode() == 404) {
      return Optional.empty();
    }
    if (r.statusCode() != 200) {
      throw new IntegratorException.Transient(
          "The gateway answered " + r.statusCode() + " to a look-up", null);
    }
    try {
      return Optional.of(JSON.readTree(r.body()).get("chargeId").asText());
    } catch (IOException | RuntimeException e) {
      throw new IntegratorException.Transient("Unreadable charge answer: " + r.body(), e);
    }
  }

  @Override
  public Duration callTimeout() {
    return timeout;
  }

  @Override
  public void refund(String chargeId) throws IntegratorException {
    HttpRequest request =
        HttpRequest.newBuilder(base.resolve("/charges/" + chargeId + "/refund"))
            .timeout(timeout)
            // one refund per charge, however often it is sent (a retry after a lost answer)
            .header("Idempotency-Key", "refund-" + chargeId)
            .POST(HttpRequest.BodyPublishers.noBody())
            .build();
    HttpResponse<String> r = send(request, "refunding");
    if (permanent(r.statusCode())) {
      throw new IntegratorException.Rejected(
          "The gateway refused the refund of "
              + chargeId
              + " ("
              + r.statusCode()
              + "): "
              + r.body());
    }
    if (r.statusCode() != 200) {
      throw new IntegratorException.Transient(
          "The gateway answered " + r.statusCode() + " to a refund", null);
    }
  }
}
