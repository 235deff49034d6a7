package dev.ordinal.billing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The integrator over HTTP ({@code POST /invoices}, {@code GET /invoices/{series}/{number}}, {@code
 * GET /invoices?invoiceId=}), as the simulator in {@code infra} speaks it. A resilience4j circuit
 * breaker stops calling an integrator that keeps failing; while it is open, calls fail as {@link
 * IntegratorException.Transient} at once and reserved numbers simply wait.
 */
public final class HttpEInvoiceIntegrator implements EInvoiceIntegrator {
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final URI base;
  private final Duration timeout;
  private final HttpClient http;
  private final CircuitBreaker breaker;

  public HttpEInvoiceIntegrator(URI base, Duration timeout) {
    this.base = base;
    this.timeout = timeout;
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();
    this.breaker =
        CircuitBreaker.of(
            "e-invoice-integrator",
            CircuitBreakerConfig.custom()
                .failureRateThreshold(50)
                .slidingWindowSize(20)
                .minimumNumberOfCalls(10)
                .waitDurationInOpenState(Duration.ofSeconds(5))
                .ignoreExceptions(
                    IntegratorException.Rejected.class, IntegratorException.NumberTaken.class)
                .build());
  }

  public CircuitBreaker circuitBreaker() {
    return breaker;
  }

  @Override
  public void submit(Submission s) throws IntegratorException {
    ObjectNode body = JSON.createObjectNode();
    body.put("series", s.series());
    body.put("number", s.number());
    body.put("invoiceId", s.invoiceId().toString());
    body.put("orderId", s.orderId().toString());
    body.put("total", s.total().toPlainString());
    body.put("currency", s.currency());
    HttpRequest request =
        HttpRequest.newBuilder(base.resolve("/invoices"))
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
            .build();
    HttpResponse<String> r = call(request, true);
    int status = r.statusCode();
    if (status == 200 || status == 201) {
      return;
    }
    if (status == 409) {
      throw new IntegratorException.NumberTaken(
          s.series() + "/" + s.number() + " holds another invoice at the integrator: " + r.body());
    }
    if (status == 400 || status == 422) {
      throw new IntegratorException.Rejected(
          "The integrator rejected " + s.series() + "/" + s.number() + ": " + detail(r.body()));
    }
    if (status == 504) {
      throw new IntegratorException.OutcomeUnknown(
          "The integrator timed out on " + s.series() + "/" + s.number(), null);
    }
    throw new IntegratorException.Transient(
        "The integrator answered " + status + " for " + s.series() + "/" + s.number(), null);
  }

  @Override
  public Optional<RemoteInvoice> lookup(String series, long number) throws IntegratorException {
    HttpResponse<String> r = get("/invoices/" + series + "/" + number, series + "/" + number);
    if (r.statusCode() == 404) {
      return Optional.empty();
    }
    if (r.statusCode() != 200) {
      throw new IntegratorException.Transient(
          "Look-up of " + series + "/" + number + " answered " + r.statusCode(), null);
    }
    try {
      JsonNode n = JSON.readTree(r.body());
      return Optional.of(
          new RemoteInvoice(series, number, UUID.fromString(n.get("invoiceId").asText())));
    } catch (IOException | RuntimeException e) {
      throw new IntegratorException.Transient("Look-up answer unreadable: " + r.body(), e);
    }
  }

  @Override
  public List<RemoteInvoice> lookupByInvoice(UUID invoiceId) throws IntegratorException {
    HttpResponse<String> r = get("/invoices?invoiceId=" + invoiceId, "invoice " + invoiceId);
    if (r.statusCode() != 200) {
      throw new IntegratorException.Transient(
          "Look-up of invoice " + invoiceId + " answered " + r.statusCode(), null);
    }
    try {
      List<RemoteInvoice> held = new ArrayList<>();
      for (JsonNode n : JSON.readTree(r.body())) {
        held.add(
            new RemoteInvoice(
                n.get("series").asText(),
                n.get("number").asLong(),
                UUID.fromString(n.get("invoiceId").asText())));
      }
      return held;
    } catch (IOException | RuntimeException e) {
      throw new IntegratorException.Transient("Look-up answer unreadable: " + r.body(), e);
    }
  }

  /** A look-up of {@code path}: a failed call is transient, named after {@code what}. */
  private HttpResponse<String> get(String path, String what) throws IntegratorException {
    HttpRequest request = HttpRequest.newBuilder(base.resolve(path)).timeout(timeout).GET().build();
    try {
      return call(request, false);
    } catch (IntegratorException.OutcomeUnknown e) {
      throw new IntegratorException.Transient("Look-up of " + what + " failed", e);
    }
  }

  private HttpResponse<String> call(HttpRequest request, boolean sendsData)
      throws IntegratorException {
    if (!breaker.tryAcquirePermission()) {
      throw new IntegratorException.Transient(
          "The integrator's circuit breaker is open",
          CallNotPermittedException.createCallNotPermittedException(breaker));
    }
    long start = System.nanoTime();
    try {
      HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() >= 500) {
        breaker.onError(
            System.nanoTime() - start,
            java.util.concurrent.TimeUnit.NANOSECONDS,
            new IOException("HTTP " + r.statusCode()));
      } else {
        breaker.onSuccess(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
      }
      return r;
    } catch (HttpConnectTimeoutException | ConnectException e) {
      breaker.onError(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS, e);
      throw new IntegratorException.Transient("The integrator is unreachable: " + e, e);
    } catch (HttpTimeoutException e) {
      breaker.onError(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS, e);
      throw new IntegratorException.OutcomeUnknown(
          "No answer from the integrator in " + timeout, e);
    } catch (IOException e) {
      breaker.onError(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS, e);
      // the request may have been received: for a submission that means "look it up"
      if (sendsData) {
        throw new IntegratorException.OutcomeUnknown("The connection dropped: " + e, e);
      }
      throw new IntegratorException.Transient("The connection dropped: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      breaker.releasePermission();
      throw new IntegratorException.OutcomeUnknown("Interrupted while calling the integrator", e);
    }
  }

  private static String detail(String body) {
    try {
      JsonNode n = JSON.readTree(body);
      return n.hasNonNull("detail") ? n.get("detail").asText() : body;
    } catch (IOException e) {
      return body;
    }
  }
}
