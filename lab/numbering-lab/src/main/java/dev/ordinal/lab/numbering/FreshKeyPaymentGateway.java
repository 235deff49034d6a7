package dev.ordinal.lab.numbering;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ordinal.billing.IntegratorException;
import dev.ordinal.billing.PaymentGateway;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

/**
 * The naive gateway client: a fresh idempotency key for every call, so the gateway cannot tell a
 * second charge for the same order from a new one. The project's {@code HttpPaymentGateway} sends
 * the order id as the key instead.
 */
final class FreshKeyPaymentGateway implements PaymentGateway {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private final URI base;
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(TIMEOUT).build();

  FreshKeyPaymentGateway(URI base) {
    this.base = base;
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
            .timeout(TIMEOUT)
            .header("Content-Type", "application/json")
            .header("Idempotency-Key", UUID.randomUUID().toString())
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
            .build();
    try {
      HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() == 200 || r.statusCode() == 201) {
        return JSON.readTree(r.body()).get("chargeId").asText();
      }
      throw new IntegratorException.Rejected("The gateway answered " + r.statusCode());
    } catch (IOException e) {
      throw new IntegratorException.Transient("The payment gateway did not answer: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IntegratorException.Transient("Interrupted while charging", e);
    }
  }

  @Override
  public java.util.Optional<String> chargeFor(UUID orderId) throws IntegratorException {
    // every call had a key of its own: there is no key to ask about
    throw new IntegratorException.Rejected("the naive lab gateway keeps no keys to look up");
  }

  @Override
  public void refund(String chargeId) throws IntegratorException {
    // the lab's naive consumer never refunds; refunding is the real gateway's business
    throw new IntegratorException.Rejected("the naive lab gateway does not refund");
  }
}
