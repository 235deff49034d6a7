package dev.ordinal.lab.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class IntegratorSimulatorTest {
  private static final IntegratorFaults FAST =
      IntegratorFaults.defaults().withLatency(Duration.ZERO, Duration.ofMillis(5));
  private static final Instant NOW = Instant.parse("2026-03-01T10:00:00Z");

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private IntegratorSimulator sim;

  @BeforeEach
  void start() {
    sim =
        new IntegratorSimulator(0, FAST, new SplittableRandom(42), Clock.fixed(NOW, ZoneOffset.UTC))
            .start();
  }

  @AfterEach
  void stop() {
    sim.close();
  }

  @Test
  void acceptsAnInvoiceAndFindsItByNumber() throws Exception {
    HttpResponse<String> r = submit("F2026", 17, "inv-1");

    assertThat(r.statusCode()).isEqualTo(201);
    assertThat(r.body())
        .contains("\"status\":\"ACCEPTED\"", "\"series\":\"F2026\"", "\"number\":17")
        .contains("\"invoiceId\":\"inv-1\"");
    HttpResponse<String> found = get("/invoices/F2026/17");
    assertThat(found.statusCode()).isEqualTo(200);
    assertThat(found.body())
        .contains("\"invoiceId\":\"inv-1\"", "\"total\":\"12.50\"", "\"currency\":\"EUR\"")
        .contains("\"acceptedAt\":\"2026-03-01T10:00:00Z\"");
    HttpResponse<String> missing = get("/invoices/F2026/18");
    assertThat(missing.statusCode()).isEqualTo(404);
    assertThat(missing.body()).contains("\"error\":\"NOT_FOUND\"", "F2026/18");
    HttpResponse<String> noRoute = get("/nowhere");
    assertThat(noRoute.statusCode()).isEqualTo(404);
    assertThat(noRoute.body()).contains("\"error\":\"NOT_FOUND\"", "/nowhere");
    assertThat(sim.accepted()).containsExactly(Map.entry(new InvoiceNumber("F2026", 17), "inv-1"));
    assertThat(sim.acceptedCount()).isEqualTo(1);
    assertThat(sim.calls()).isEqualTo(1);
  }

  @Test
  void aNumberTakenByAnotherInvoiceIsADuplicateAndTheFirstStays() throws Exception {
    assertThat(submit("F2026", 17, "inv-1").statusCode()).isEqualTo(201);

    HttpResponse<String> dup = submit("F2026", 17, "inv-2");

    assertThat(dup.statusCode()).isEqualTo(409);
    assertThat(dup.body())
        .isEqualTo("{\"error\":\"DUPLICATE\",\"detail\":\"Duplicate / Already Exists\"}");
    assertThat(sim.duplicateAttempts()).isEqualTo(1);
    assertThat(get("/invoices/F2026/17").body()).contains("\"invoiceId\":\"inv-1\"");
    assertThat(sim.accepted()).containsExactly(Map.entry(new InvoiceNumber("F2026", 17), "inv-1"));
    assertThat(sim.submissions()).containsExactly(Map.entry(new InvoiceNumber("F2026", 17), 2));
  }

  @Test
  void resubmittingTheSameInvoiceIsIdempotent() throws Exception {
    HttpResponse<String> first = submit("F2026", 3, "inv-3");

    HttpResponse<String> again = submit("F2026", 3, "inv-3");

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(again.statusCode()).isEqualTo(200);
    assertThat(again.body()).isEqualTo(first.body());
    assertThat(sim.acceptedCount()).isEqualTo(1);
    assertThat(sim.duplicateAttempts()).isZero();
    assertThat(sim.calls()).isEqualTo(2);
  }

  static Stream<Arguments> refusals() {
    return Stream.of(
        Arguments.of(
            FAST.withTransientFailureRate(1.0),
            503,
            "UNAVAILABLE",
            IntegratorFault.TRANSIENT_FAILURE),
        Arguments.of(FAST.withRejectionRate(1.0), 422, "REJECTED", IntegratorFault.REJECTION));
  }

  @ParameterizedTest(name = "{3} answers {1} and stores nothing")
  @MethodSource("refusals")
  void aTransientFailureOrARejectionAnswersItsStatusAndStoresNothing(
      IntegratorFaults faults, int status, String error, IntegratorFault fault) throws Exception {
    sim.faults(faults);

    HttpResponse<String> r = submit("F2026", 1, "inv-1");

    assertThat(r.statusCode()).isEqualTo(status);
    assertThat(r.body()).contains("\"error\":\"" + error + "\"");
    assertThat(get("/invoices/F2026/1").statusCode()).isEqualTo(404);
    assertThat(sim.acceptedCount()).isZero();
    assertThat(sim.injected(fault)).isEqualTo(1);
  }

  @Test
  void aTimeoutHoldsTheRequestThenAnswers504AndStoresNothing() throws Exception {
    sim.faults(FAST.withTimeouts(1.0, Duration.ofMillis(100)));

    long started = System.nanoTime();
    HttpResponse<String> r = submit("F2026", 1, "inv-1");

    assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThan(Duration.ofMillis(100));
    assertThat(r.statusCode()).isEqualTo(504);
    assertThat(r.body()).contains("\"error\":\"TIMEOUT\"");
    assertThat(sim.acceptedCount()).isZero();
    assertThat(sim.injected(IntegratorFault.TIMEOUT)).isEqualTo(1);
  }

  /** Holds submissions, then sends invoice F2026/{@code number} and waits until it is held. */
  private CompletableFuture<HttpResponse<String>> heldSubmission(long number, String invoiceId) {
    sim.hold();
    CompletableFuture<HttpResponse<String>> pending =
        http.sendAsync(
            invoice("F2026", number, invoiceId).build(), HttpResponse.BodyHandlers.ofString());
    await().atMost(Duration.ofSeconds(5)).until(() -> sim.held() == 1);
    return pending;
  }

  /** {@code request} sent with {@code timeout} ends in the client's timeout. */
  private void assertClientGivesUp(HttpRequest.Builder request, Duration timeout) {
    assertThatThrownBy(
            () -> http.send(request.timeout(timeout).build(), HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(HttpTimeoutException.class);
  }

  @Test
  void aClientWithAShorterTimeoutGivesUpFirstAndNothingIsStored() {
    sim.faults(FAST.withTimeouts(1.0, Duration.ofMinutes(1)));

    assertClientGivesUp(invoice("F2026", 1, "inv-1"), Duration.ofMillis(200));
    assertThat(sim.acceptedCount()).isZero();
  }

  @Test
  void aLateAcceptIsStoredAfterTheClientGaveUpAndNotFoundBefore() throws Exception {
    sim.faults(FAST.withTimeouts(0, Duration.ofMillis(700)).withLateAcceptRate(1.0));

    assertClientGivesUp(invoice("F2026", 3, "inv-3"), Duration.ofMillis(100));
    assertThat(get("/invoices/F2026/3").statusCode()).as("not stored yet").isEqualTo(404);

    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (sim.acceptedCount() == 0 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(get("/invoices/F2026/3").statusCode()).as("stored late").isEqualTo(200);
    assertThat(sim.accepted()).containsExactly(Map.entry(new InvoiceNumber("F2026", 3), "inv-3"));
    assertThat(sim.injected(IntegratorFault.LATE_ACCEPT)).isEqualTo(1);
  }

  @Test
  void acceptedThenDroppedLeavesTheClientWithAnIOExceptionAndTheInvoiceStored() throws Exception {
    sim.faults(FAST.withDroppedAfterAcceptRate(1.0));

    assertThatThrownBy(() -> submit("F2026", 9, "inv-9"))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(HttpTimeoutException.class);

    HttpResponse<String> found = get("/invoices/F2026/9");
    assertThat(found.statusCode()).isEqualTo(200);
    assertThat(found.body()).contains("\"invoiceId\":\"inv-9\"");
    assertThat(sim.accepted()).containsExactly(Map.entry(new InvoiceNumber("F2026", 9), "inv-9"));
    assertThat(sim.injected(IntegratorFault.DROPPED_AFTER_ACCEPT)).isEqualTo(1);
  }

  @Test
  void aHeldSubmissionWaitsUntilReleasedWhileOtherRequestsGoOn() throws Exception {
    CompletableFuture<HttpResponse<String>> pending = heldSubmission(5, "inv-5");

    assertThatThrownBy(() -> pending.get(200, TimeUnit.MILLISECONDS))
        .isInstanceOf(TimeoutException.class);
    assertThat(get("/invoices/F2026/5").statusCode()).isEqualTo(404);
    assertThat(sim.acceptedCount()).isZero();

    sim.release();

    assertThat(pending.get(5, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
    assertThat(sim.held()).isZero();
    assertThat(get("/invoices/F2026/5").statusCode()).isEqualTo(200);
  }

  @Test
  void submissionsOfOneSeriesInFlightTogetherAreCountedPerSeries() throws Exception {
    assertThat(submit("F2026", 1, "inv-1").statusCode()).isEqualTo(201);
    assertThat(sim.maxSameSeriesInFlight()).isEqualTo(1);
    sim.hold();
    CompletableFuture<HttpResponse<String>> a =
        http.sendAsync(invoice("F2026", 2, "inv-2").build(), HttpResponse.BodyHandlers.ofString());
    CompletableFuture<HttpResponse<String>> b =
        http.sendAsync(invoice("F2026", 3, "inv-3").build(), HttpResponse.BodyHandlers.ofString());
    CompletableFuture<HttpResponse<String>> other =
        http.sendAsync(invoice("G2026", 1, "inv-4").build(), HttpResponse.BodyHandlers.ofString());
    await().atMost(Duration.ofSeconds(5)).until(() -> sim.held() == 3);
    sim.release();

    assertThat(a.get(5, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
    assertThat(b.get(5, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
    assertThat(other.get(5, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
    assertThat(sim.maxSameSeriesInFlight()).isEqualTo(2);
  }

  @Test
  void closingAnswersAHeldSubmissionInsteadOfWaitingForIt() throws Exception {
    CompletableFuture<HttpResponse<String>> pending = heldSubmission(6, "inv-6");

    sim.close();

    assertThat(pending.handle((r, e) -> r == null ? -1 : r.statusCode()).get(5, TimeUnit.SECONDS))
        .isIn(503, -1);
    assertThat(sim.acceptedCount()).isZero();
  }

  @Test
  void aMalformedSubmissionIsRefusedWithTheFieldNamed() throws Exception {
    HttpResponse<String> r =
        http.send(
            HttpRequest.newBuilder(uri("/invoices"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"series\":\"F2026\",\"number\":0}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("\"error\":\"INVALID\"", "number");
    assertThat(sim.calls()).isEqualTo(1);
    assertThat(sim.submissions()).isEmpty();
  }

  @Test
  void theAdminEndpointChangesTheFaultsAndRefusesImpossibleOnes() throws Exception {
    HttpResponse<String> ok = putFaults("{\"rejectionRate\":1.0}");
    HttpResponse<String> bad = putFaults("{\"transientFailureRate\":0.5}");
    HttpResponse<String> typo = putFaults("{\"rejectRate\":0.5}");

    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.body()).contains("\"rejectionRate\":1.0", "\"latencyMaxMs\":5");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).contains("at most 1");
    assertThat(typo.statusCode()).isEqualTo(400);
    assertThat(typo.body()).contains("rejectRate");
    assertThat(sim.faults()).isEqualTo(FAST.withRejectionRate(1.0));
    assertThat(submit("F2026", 1, "inv-1").statusCode()).isEqualTo(422);
  }

  @Test
  void aSeededRunRepeatsItsFaultsExactly() throws Exception {
    IntegratorFaults mixed =
        FAST.withTransientFailureRate(0.2)
            .withRejectionRate(0.2)
            .withTimeouts(0.2, Duration.ofMillis(1))
            .withDroppedAfterAcceptRate(0.2);
    List<String> first = outcomes(mixed, 99);
    List<String> second = outcomes(mixed, 99);

    assertThat(second).isEqualTo(first);
    assertThat(first).contains("201", "503", "422", "504", "dropped");
  }

  @Test
  void impossibleFaultSettingsNameTheSettingToChange() {
    assertThatThrownBy(() -> FAST.withTransientFailureRate(0.6).withRejectionRate(0.6))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at most 1");
    assertThatThrownBy(() -> FAST.withLatency(Duration.ofMillis(5), Duration.ofMillis(1)))
        .hasMessageContaining("latencyMax");
    assertThatThrownBy(() -> FAST.withDroppedAfterAcceptRate(-0.1))
        .hasMessageContaining("droppedAfterAcceptRate");
    assertThatThrownBy(() -> FAST.withTimeouts(0.1, Duration.ZERO)).hasMessageContaining("timeout");
  }

  @Test
  void aTakenPortIsReportedWithThePort() {
    IntegratorSimulator second = new IntegratorSimulator(sim.port(), FAST);

    assertThatThrownBy(second::start)
        .isInstanceOf(SimulatorException.class)
        .hasMessageContaining("port " + sim.port());
    second.close();
  }

  private List<String> outcomes(IntegratorFaults faults, long seed) throws Exception {
    List<String> seen = new ArrayList<>();
    try (IntegratorSimulator s =
        new IntegratorSimulator(0, faults, new SplittableRandom(seed), Clock.systemUTC()).start()) {
      for (int i = 1; i <= 30; i++) {
        HttpRequest r = invoice("S", i, "inv-" + i).uri(s.baseUri().resolve("/invoices")).build();
        try {
          seen.add(
              Integer.toString(http.send(r, HttpResponse.BodyHandlers.ofString()).statusCode()));
        } catch (HttpTimeoutException e) {
          throw e;
        } catch (IOException e) {
          seen.add("dropped");
        }
      }
      assertThat(s.acceptedCount())
          .isEqualTo(seen.stream().filter(o -> o.equals("201") || o.equals("dropped")).count());
    }
    return seen;
  }

  private HttpResponse<String> putFaults(String json) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(uri("/admin/faults"))
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(json))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> submit(String series, long number, String invoiceId)
      throws IOException, InterruptedException {
    return http.send(
        invoice(series, number, invoiceId).build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest.Builder invoice(String series, long number, String invoiceId) {
    String body =
        "{\"series\":\"%s\",\"number\":%d,\"invoiceId\":\"%s\",\"orderId\":\"ord-%d\",\"total\":\"12.50\",\"currency\":\"EUR\"}"
            .formatted(series, number, invoiceId, number);
    return HttpRequest.newBuilder(uri("/invoices"))
        .header("Content-Type", "application/json")
        .timeout(Duration.ofSeconds(5))
        .POST(HttpRequest.BodyPublishers.ofString(body));
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(5)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private URI uri(String path) {
    return sim.baseUri().resolve(path);
  }
}
