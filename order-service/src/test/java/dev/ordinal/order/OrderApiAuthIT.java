package dev.ordinal.order;

import static dev.ordinal.messaging.db.Tables.OUTBOX;
import static dev.ordinal.order.db.Tables.IDEMPOTENCY_KEY;
import static dev.ordinal.order.db.Tables.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import dev.ordinal.testkit.Tokens;
import java.net.ConnectException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * order-service with {@code --auth jwt} and {@code --host 127.0.0.1}, through its runtime, on the
 * real PostgreSQL; the issuer's keys and tokens are made by the test ({@link Tokens}), its JWKS in
 * a file. Each refusal writes nothing; each caller sees only its own orders and keys.
 */
@ExtendWith(OrdinalStackExtension.class)
class OrderApiAuthIT {
  static final ObjectMapper JSON = new ObjectMapper();
  static final Tokens TOKENS = new Tokens();
  static final String[] ALL_SCOPES = {
    ApiAuth.SCOPE_WRITE, ApiAuth.SCOPE_READ, ApiAuth.SCOPE_CANCEL
  };

  @TempDir static Path dir;
  @AutoClose static OrderServiceApp app;
  @AutoClose static HikariDataSource pool;
  static DSLContext dsl;
  static final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @BeforeAll
  static void start(TestNamespace ns) throws Exception {
    DatabaseSettings db = TestOrderService.database(ns);
    ApiAuth auth = ApiAuth.jwt(Tokens.ISSUER, Tokens.AUDIENCE, TOKENS.writeJwks(dir));
    app = TestOrderService.start(db, ns, auth, b -> b.host("127.0.0.1"));
    pool = db.withSchema(ns.schema()).pool("auth-it", 2);
    dsl = DSL.using(pool, SQLDialect.POSTGRES);
  }

  static HttpResponse<String> send(String method, String path, String token, String key)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + path))
            .timeout(Duration.ofSeconds(30));
    if (method.equals("GET")) {
      b.GET();
    } else {
      b.header("Content-Type", "application/json")
          .POST(
              HttpRequest.BodyPublishers.ofString(
                  path.equals("/orders") ? TestOrderService.ORDER : ""));
    }
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    if (key != null) {
      b.header("Idempotency-Key", key);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static String place(String token, String key) throws Exception {
    HttpResponse<String> r = send("POST", "/orders", token, key);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    return JSON.readTree(r.body()).get("orderId").asText();
  }

  /** Orders, idempotency keys and outbox rows: what a refused request must leave as it was. */
  static List<Integer> counts() {
    return List.of(dsl.fetchCount(ORDERS), dsl.fetchCount(IDEMPOTENCY_KEY), dsl.fetchCount(OUTBOX));
  }

  static void assertProblem(HttpResponse<String> r, int status, String title) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    JsonNode body = JSON.readTree(r.body());
    assertThat(body.get("status").asInt()).isEqualTo(status);
    assertThat(body.get("title").asText()).isEqualTo(title);
  }

  @Test
  void withoutATokenEachEndpointAnswers401WithABearerChallengeAndWritesNothing() throws Exception {
    String someone = place(TOKENS.token("owner-0", ALL_SCOPES), null);
    List<Integer> before = counts();
    for (String[] request :
        new String[][] {
          {"POST", "/orders"},
          {"GET", "/orders/" + someone},
          {"POST", "/orders/" + someone + "/cancel"}
        }) {
      HttpResponse<String> r = send(request[0], request[1], null, "key-no-token");
      assertProblem(r, 401, "Unauthorized");
      assertThat(r.headers().firstValue("WWW-Authenticate"))
          .hasValue("Bearer realm=\"ordinal-orders\"");
    }
    assertThat(counts()).isEqualTo(before);
  }

  @Test
  void anExpiredTokenAnswers401WithAnInvalidTokenChallenge() throws Exception {
    Instant issued = Instant.now().minus(Duration.ofMinutes(10));
    // valid for 5 minutes from 10 minutes ago: past by 5 minutes, beyond the 60 s of skew
    String expired = TOKENS.rs256(Tokens.claims(issued, "alice", ALL_SCOPES).build());
    List<Integer> before = counts();
    HttpResponse<String> r = send("POST", "/orders", expired, null);
    assertProblem(r, 401, "Unauthorized");
    assertThat(r.headers().firstValue("WWW-Authenticate").orElseThrow())
        .startsWith("Bearer realm=\"ordinal-orders\", error=\"invalid_token\"")
        .contains("Expired JWT");
    assertThat(JSON.readTree(r.body()).get("detail").asText()).contains("Expired JWT");
    assertThat(counts()).isEqualTo(before);
  }

  @Test
  void aTokenForAnotherAudienceAnswers403AndWritesNothing() throws Exception {
    String forBilling =
        TOKENS.rs256(
            Tokens.claims(Instant.now(), "alice", ALL_SCOPES).audience("ordinal-billing").build());
    List<Integer> before = counts();
    HttpResponse<String> r = send("POST", "/orders", forBilling, "key-other-audience");
    assertProblem(r, 403, "Forbidden");
    assertThat(JSON.readTree(r.body()).get("detail").asText())
        .isEqualTo(
            "The token is not for this API: its audience (aud) does not include ordinal-orders.");
    assertThat(counts()).isEqualTo(before);
  }

  @Test
  void aTokenWithoutTheScopeAnEndpointNeedsAnswers403NamingIt() throws Exception {
    String reader = TOKENS.token("scoped", ApiAuth.SCOPE_READ);
    String writer = TOKENS.token("scoped", ApiAuth.SCOPE_WRITE);
    List<Integer> before = counts();
    HttpResponse<String> place = send("POST", "/orders", reader, null);
    assertProblem(place, 403, "Forbidden");
    assertThat(place.headers().firstValue("WWW-Authenticate"))
        .hasValue(
            "Bearer realm=\"ordinal-orders\", error=\"insufficient_scope\","
                + " scope=\"orders:write\"");
    assertThat(counts()).isEqualTo(before);

    String id = place(writer, null);
    assertProblem(send("GET", "/orders/" + id, writer, null), 403, "Forbidden");
    List<Integer> placed = counts();
    HttpResponse<String> cancel = send("POST", "/orders/" + id + "/cancel", reader, null);
    assertProblem(cancel, 403, "Forbidden");
    assertThat(cancel.headers().firstValue("WWW-Authenticate").orElseThrow())
        .endsWith("scope=\"orders:cancel\"");
    assertThat(counts()).isEqualTo(placed);
    assertThat(status(id)).isEqualTo("PLACED");
    assertThat(send("GET", "/orders/" + id, reader, null).statusCode()).isEqualTo(200);
  }

  @Test
  void twoCallersUsingTheSameIdempotencyKeyGetTwoOrders() throws Exception {
    String key = "shared-" + UUID.randomUUID();
    String alice = TOKENS.token("alice", ALL_SCOPES);
    String bob = TOKENS.token("bob", ALL_SCOPES);
    String alicesOrder = place(alice, key);
    String bobsOrder = place(bob, key);
    HttpResponse<String> aliceAgain = send("POST", "/orders", alice, key);

    assertThat(bobsOrder).isNotEqualTo(alicesOrder);
    assertThat(aliceAgain.statusCode()).isEqualTo(201);
    assertThat(aliceAgain.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    assertThat(JSON.readTree(aliceAgain.body()).get("orderId").asText()).isEqualTo(alicesOrder);
    assertThat(
            dsl.select(IDEMPOTENCY_KEY.OWNER, IDEMPOTENCY_KEY.ORDER_ID)
                .from(IDEMPOTENCY_KEY)
                .where(IDEMPOTENCY_KEY.IDEMPOTENCY_KEY_.eq(key))
                .orderBy(IDEMPOTENCY_KEY.OWNER)
                .fetch(r -> r.value1() + "=" + r.value2()))
        .containsExactly("alice=" + alicesOrder, "bob=" + bobsOrder);
    assertThat(owner(alicesOrder)).isEqualTo("alice");
    assertThat(owner(bobsOrder)).isEqualTo("bob");
  }

  @Test
  void aCallerCannotReadOrCancelAnotherCallersOrderWhichAnswersAsUnknown() throws Exception {
    String alice = TOKENS.token("alice", ALL_SCOPES);
    String mallory = TOKENS.token("mallory", ALL_SCOPES);
    String id = place(alice, null);
    List<Integer> before = counts();

    HttpResponse<String> read = send("GET", "/orders/" + id, mallory, null);
    HttpResponse<String> cancel = send("POST", "/orders/" + id + "/cancel", mallory, null);
    HttpResponse<String> unknown = send("GET", "/orders/" + UUID.randomUUID(), mallory, null);
    for (HttpResponse<String> r : List.of(read, cancel, unknown)) {
      assertProblem(r, 404, "Not found");
    }
    // the same answer as for an id nobody has: nothing tells the order exists
    assertThat(JSON.readTree(read.body()).get("detail").asText())
        .isEqualTo("No order has id " + id + ".");
    assertThat(JSON.readTree(cancel.body()).get("detail").asText())
        .isEqualTo("No order has id " + id + ".");
    assertThat(counts()).isEqualTo(before);
    assertThat(status(id)).isEqualTo("PLACED");

    assertThat(send("GET", "/orders/" + id, alice, null).statusCode()).isEqualTo(200);
    assertThat(send("POST", "/orders/" + id + "/cancel", alice, null).statusCode()).isEqualTo(200);
    assertThat(status(id)).isEqualTo("CANCELLED");
  }

  @Test
  void theApiListensOnlyOnTheHostItWasGiven() throws Exception {
    try (Socket s = new Socket("127.0.0.1", app.port())) {
      assertThat(s.isConnected()).isTrue();
    }
    // another loopback address reaches a socket bound to every interface, not this one
    assertThatThrownBy(() -> new Socket("127.0.0.2", app.port()).close())
        .isInstanceOf(ConnectException.class);
  }

  static String status(String id) {
    return dsl.select(ORDERS.STATUS)
        .from(ORDERS)
        .where(ORDERS.ID.eq(UUID.fromString(id)))
        .fetchOne(ORDERS.STATUS);
  }

  static String owner(String id) {
    return dsl.select(ORDERS.OWNER)
        .from(ORDERS)
        .where(ORDERS.ID.eq(UUID.fromString(id)))
        .fetchOne(ORDERS.OWNER);
  }
}
