package dev.ordinal.lab.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PaymentGatewaySimulatorTest {
  private static final PaymentGatewayFaults FAST =
      PaymentGatewayFaults.defaults().withLatency(Duration.ZERO, Duration.ofMillis(5));
  private static final Pattern CHARGE_ID = Pattern.compile("\"chargeId\":\"(ch_[0-9a-f]{16})\"");

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private PaymentGatewaySimulator sim;

  @BeforeEach
  void start() {
    sim =
        new PaymentGatewaySimulator(
                0,
                FAST,
                new SplittableRandom(7),
                Clock.fixed(Instant.parse("2026-03-01T10:00:00Z"), ZoneOffset.UTC))
            .start();
  }

  @AfterEach
  void stop() {
    sim.close();
  }

  @Test
  void theSameKeyTwiceMakesOneCharge() throws Exception {
    HttpResponse<String> first = charge("order-1", "order-1", "12.50");
    HttpResponse<String> again = charge("order-1", "order-1", "12.50");

    assertThat(first.statusCode()).isEqualTo(201);
    assertThat(first.body()).contains("\"status\":\"CAPTURED\"", "\"amount\":\"12.50\"");
    assertThat(again.statusCode()).isEqualTo(200);
    assertThat(chargeId(again)).isEqualTo(chargeId(first));
    assertThat(sim.charges()).isEqualTo(1);
    assertThat(sim.chargesFor("order-1")).hasSize(1);
    assertThat(sim.calls()).isEqualTo(2);
  }

  @Test
  void theSameKeyWithAnotherBodyIsRefusedWithoutCharging() throws Exception {
    charge("order-1", "order-1", "12.50");

    HttpResponse<String> other = charge("order-1", "order-1", "99.00");

    assertThat(other.statusCode()).isEqualTo(422);
    assertThat(other.body()).contains("\"error\":\"IDEMPOTENCY_KEY_REUSED\"");
    assertThat(sim.charges()).isEqualTo(1);
    assertThat(sim.chargesFor("order-1"))
        .singleElement()
        .extracting(c -> c.amount().toPlainString())
        .isEqualTo("12.50");
  }

  @Test
  void anAmountWrittenDifferentlyIsTheSameRequest() throws Exception {
    HttpResponse<String> first = charge("order-1", "order-1", "12.50");

    HttpResponse<String> again = charge("order-1", "order-1", "12.5");

    assertThat(again.statusCode()).isEqualTo(200);
    assertThat(chargeId(again)).isEqualTo(chargeId(first));
  }

  @Test
  void aChargeWithoutAnIdempotencyKeyIsRefused() throws Exception {
    HttpResponse<String> r = send(chargeRequest(null, "order-1", "12.50"));

    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("Idempotency-Key");
    assertThat(sim.charges()).isZero();
  }

  @Test
  void twentyConcurrentRequestsWithOneKeyMakeOneCharge() {
    List<CompletableFuture<HttpResponse<String>>> all =
        IntStream.range(0, 20)
            .mapToObj(
                i ->
                    http.sendAsync(
                        chargeRequest("order-7", "order-7", "30.00"),
                        HttpResponse.BodyHandlers.ofString()))
            .toList();
    List<HttpResponse<String>> responses = all.stream().map(CompletableFuture::join).toList();

    assertThat(responses).extracting(HttpResponse::statusCode).containsOnly(201, 200);
    assertThat(responses).filteredOn(r -> r.statusCode() == 201).hasSize(1);
    assertThat(responses)
        .extracting(PaymentGatewaySimulatorTest::chargeId)
        .containsOnly(chargeId(responses.get(0)));
    assertThat(sim.charges()).isEqualTo(1);
    assertThat(sim.chargesFor("order-7")).hasSize(1);
  }

  @Test
  void twoKeysForOneOrderAreTwoChargesAndIntrospectionShowsIt() throws Exception {
    charge("msg-1", "order-2", "5.00");
    charge("msg-2", "order-2", "5.00");

    assertThat(sim.charges()).isEqualTo(2);
    assertThat(sim.chargesFor("order-2")).hasSize(2);
  }

  @Test
  void aRefundIsIdempotent() throws Exception {
    String id = chargeId(charge("order-1", "order-1", "12.50"));

    HttpResponse<String> first = refund(id);
    HttpResponse<String> again = refund(id);

    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).contains("\"status\":\"REFUNDED\"", "\"chargeId\":\"" + id + "\"");
    assertThat(again.statusCode()).isEqualTo(200);
    assertThat(again.body()).contains("\"status\":\"REFUNDED\"");
    assertThat(sim.find(id)).map(Charge::status).contains(Charge.Status.REFUNDED);
    assertThat(sim.charges()).isEqualTo(1);
    assertThat(refund("ch_0000000000000000").statusCode()).isEqualTo(404);
  }

  @Test
  void aTransientFailureChargesNothingAndTheRetryCharges() throws Exception {
    sim.faults(FAST.withTransientFailureRate(1.0));

    HttpResponse<String> failed = charge("order-1", "order-1", "12.50");

    assertThat(failed.statusCode()).isEqualTo(503);
    assertThat(sim.charges()).isZero();
    sim.faults(FAST);
    assertThat(charge("order-1", "order-1", "12.50").statusCode()).isEqualTo(201);
    assertThat(sim.charges()).isEqualTo(1);
  }

  @Test
  void aDroppedCaptureChargesOnceAndTheRetryReturnsThatCharge() throws Exception {
    sim.faults(FAST.withDroppedAfterCaptureRate(1.0));

    assertThatThrownBy(() -> charge("order-1", "order-1", "12.50"))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(HttpTimeoutException.class);

    assertThat(sim.charges()).isEqualTo(1);
    sim.faults(FAST);
    HttpResponse<String> retry = charge("order-1", "order-1", "12.50");
    assertThat(retry.statusCode()).isEqualTo(200);
    assertThat(chargeId(retry)).isEqualTo(sim.chargesFor("order-1").get(0).chargeId());
    assertThat(sim.charges()).isEqualTo(1);
  }

  @Test
  void aDeclineIsA402AndChargesNothing() throws Exception {
    sim.faults(FAST.withDeclineRate(1.0));

    HttpResponse<String> declined = charge("order-1", "order-1", "12.50");

    assertThat(declined.statusCode()).isEqualTo(402);
    assertThat(declined.body()).contains("\"error\":\"DECLINED\"");
    assertThat(sim.charges()).isZero();
    assertThat(sim.declines()).isEqualTo(1);
    assertThat(sim.chargeCalls()).isEqualTo(1);
  }

  @Test
  void aChargeIsFoundByItsIdempotencyKeyWithoutChargingAgain() throws Exception {
    HttpResponse<String> none = send(byKey("order-1"));
    assertThat(none.statusCode()).isEqualTo(404);

    String id = chargeId(charge("order-1", "order-1", "12.50"));
    HttpResponse<String> found = send(byKey("order-1"));

    assertThat(found.statusCode()).isEqualTo(200);
    assertThat(chargeId(found)).isEqualTo(id);
    assertThat(sim.chargeCalls()).isEqualTo(1);
    assertThat(sim.keyLookups()).isEqualTo(2);
    assertThat(sim.charges()).isEqualTo(1);
  }

  private HttpRequest byKey(String key) {
    return HttpRequest.newBuilder(sim.baseUri().resolve("/charges?idempotencyKey=" + key))
        .timeout(Duration.ofSeconds(5))
        .GET()
        .build();
  }

  @Test
  void theAdminEndpointChangesTheFaults() throws Exception {
    HttpResponse<String> put =
        send(
            HttpRequest.newBuilder(sim.baseUri().resolve("/admin/faults"))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"transientFailureRate\":1.0}"))
                .build());

    assertThat(put.statusCode()).isEqualTo(200);
    assertThat(sim.faults().transientFailureRate()).isEqualTo(1.0);
    assertThat(sim.faults().latencyMax()).isEqualTo(Duration.ofMillis(5));
    assertThat(charge("order-1", "order-1", "12.50").statusCode()).isEqualTo(503);
  }

  private HttpResponse<String> charge(String key, String orderId, String amount)
      throws IOException, InterruptedException {
    return send(chargeRequest(key, orderId, amount));
  }

  private HttpRequest chargeRequest(String key, String orderId, String amount) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(sim.baseUri().resolve("/charges"))
            .header("Content-Type", "application/json")
            .timeout(Duration.ofSeconds(5))
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"orderId\":\"%s\",\"amount\":\"%s\",\"currency\":\"EUR\"}"
                        .formatted(orderId, amount)));
    if (key != null) {
      b.header("Idempotency-Key", key);
    }
    return b.build();
  }

  private HttpResponse<String> refund(String chargeId) throws IOException, InterruptedException {
    return send(
        HttpRequest.newBuilder(sim.baseUri().resolve("/charges/" + chargeId + "/refund"))
            .timeout(Duration.ofSeconds(5))
            .POST(HttpRequest.BodyPublishers.noBody())
            .build());
  }

  private HttpResponse<String> send(HttpRequest r) throws IOException, InterruptedException {
    return http.send(r, HttpResponse.BodyHandlers.ofString());
  }

  private static String chargeId(HttpResponse<String> r) {
    Matcher m = CHARGE_ID.matcher(r.body());
    assertThat(m.find()).as("a chargeId in %s", r.body()).isTrue();
    return m.group(1);
  }
}
