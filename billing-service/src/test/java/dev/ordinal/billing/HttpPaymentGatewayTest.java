package dev.ordinal.billing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** How billing reads a gateway's answers, against a stub HTTP server that answers as told. */
class HttpPaymentGatewayTest {
  private HttpServer server;
  private volatile int status;
  private final List<String> refundKeys = new CopyOnWriteArrayList<>();
  private HttpPaymentGateway gateway;

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/charges",
        exchange -> {
          if (exchange.getRequestURI().getPath().endsWith("/refund")) {
            refundKeys.add(exchange.getRequestHeaders().getFirst("Idempotency-Key"));
          }
          byte[] body = "{\"error\":\"as told\"}".getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(status, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    gateway =
        new HttpPaymentGateway(
            URI.create("http://127.0.0.1:" + server.getAddress().getPort()), Duration.ofSeconds(5));
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void aConflictOnTheIdempotencyKeyIsAskedAgainNotTakenForADecline() {
    status = 409;
    assertThatThrownBy(() -> gateway.charge(UUID.randomUUID(), BigDecimal.TEN, "EUR"))
        .isInstanceOf(IntegratorException.Transient.class);
    status = 402;
    assertThatThrownBy(() -> gateway.charge(UUID.randomUUID(), BigDecimal.TEN, "EUR"))
        .isInstanceOf(IntegratorException.Rejected.class)
        .hasMessageStartingWith("The gateway declined the charge");
  }

  @Test
  void aRefundCarriesAnIdempotencyKeyOfItsCharge() throws Exception {
    status = 200;
    gateway.refund("ch-42");
    gateway.refund("ch-42");
    assertThat(refundKeys).containsExactly("refund-ch-42", "refund-ch-42");
  }
}
