package dev.ordinal.order.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.sun.net.httpserver.HttpServer;
import dev.ordinal.order.ApiAuth;
import dev.ordinal.testkit.Tokens;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Keys from {@code --jwks-url}: fetched when first needed, then kept; 503 while unreachable. */
class JwksUrlTest {
  static final Tokens TOKENS = new Tokens();

  @Test
  void theKeySetIsFetchedWhenFirstNeededAndThenServedFromTheCache() throws Exception {
    AtomicInteger fetches = new AtomicInteger();
    HttpServer issuer = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    issuer.createContext(
        "/jwks.json",
        exchange -> {
          fetches.incrementAndGet();
          byte[] body = TOKENS.publicKeys().toString().getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    issuer.start();
    try {
      URI url = URI.create("http://127.0.0.1:" + issuer.getAddress().getPort() + "/jwks.json");
      Authenticator auth =
          Authenticator.of(ApiAuth.jwt(Tokens.ISSUER, Tokens.AUDIENCE, url), Clock.systemUTC());
      assertThat(fetches).hasValue(0);
      for (int i = 0; i < 10; i++) {
        assertThat(auth.authenticate("Bearer " + TOKENS.token("caller-" + i, "orders:read")))
            .extracting(Caller::subject)
            .isEqualTo("caller-" + i);
      }
      assertThat(fetches).hasValue(1);
    } finally {
      issuer.stop(0);
    }
  }

  @Test
  void anUnreachableKeySetGives503WithRetryAfter() throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    Authenticator auth =
        Authenticator.of(
            ApiAuth.jwt(
                Tokens.ISSUER,
                Tokens.AUDIENCE,
                URI.create("http://127.0.0.1:" + closed + "/jwks.json")),
            Clock.systemUTC());
    Throwable t =
        catchThrowable(() -> auth.authenticate("Bearer " + TOKENS.token("alice", "orders:read")));
    assertThat(t).isInstanceOf(Problem.Exception.class);
    Problem.Exception e = (Problem.Exception) t;
    assertThat(e.problem().status()).isEqualTo(503);
    assertThat(e.headers()).containsEntry("Retry-After", "5");
  }
}
