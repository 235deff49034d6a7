package dev.ordinal.order;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.infra.junit.OrdinalStackExtension;
import dev.ordinal.infra.junit.TestNamespace;
import dev.ordinal.messaging.DatabaseSettings;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every malformed request gets the right 4xx, names the field, and leaves the database as it was.
 */
@ExtendWith(OrdinalStackExtension.class)
class MalformedRequestsIT {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String GOOD_LINE = "{\"sku\":\"A\",\"quantity\":1,\"unitPrice\":\"1.00\"}";
  static HikariDataSource pool;
  static DSLContext dsl;
  static OrderHttpServer server;
  static HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @BeforeAll
  static void start(TestNamespace ns) {
    pool =
        new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword())
            .withSchema(ns.schema())
            .pool("orders", 4);
    OrderService.migrate(pool, ns.schema());
    dsl = DSL.using(pool, SQLDialect.POSTGRES);
    server =
        new OrderHttpServer(
                new OrderService(dsl, Clock.systemUTC()),
                new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
                Clock.systemUTC())
            .start(0);
  }

  @AfterAll
  static void stop() {
    server.close();
    pool.close();
  }

  static String order(String customer, String currency, String lines) {
    return "{\"customerId\":"
        + customer
        + ",\"currency\":"
        + currency
        + ",\"lines\":"
        + lines
        + "}";
  }

  static String lines(int n) {
    return IntStream.range(0, n)
        .mapToObj(i -> GOOD_LINE)
        .collect(Collectors.joining(",", "[", "]"));
  }

  static Stream<Arguments> malformed() {
    String unknownId = UUID.randomUUID().toString();
    return Stream.of(
        Arguments.of(
            "malformed JSON",
            "POST",
            "/orders",
            "{\"customerId\":",
            "application/json",
            null,
            400,
            "body"),
        Arguments.of("empty body", "POST", "/orders", "", "application/json", null, 400, "body"),
        Arguments.of(
            "JSON array instead of object",
            "POST",
            "/orders",
            "[]",
            "application/json",
            null,
            400,
            "body"),
        Arguments.of(
            "missing customerId",
            "POST",
            "/orders",
            "{\"currency\":\"EUR\",\"lines\":" + lines(1) + "}",
            "application/json",
            null,
            422,
            "customerId"),
        Arguments.of(
            "customerId not a string",
            "POST",
            "/orders",
            order("42", "\"EUR\"", lines(1)),
            "application/json",
            null,
            422,
            "customerId"),
        Arguments.of(
            "missing currency",
            "POST",
            "/orders",
            "{\"customerId\":\"c\",\"lines\":" + lines(1) + "}",
            "application/json",
            null,
            422,
            "currency"),
        Arguments.of(
            "unknown currency",
            "POST",
            "/orders",
            order("\"c\"", "\"XYZ\"", lines(1)),
            "application/json",
            null,
            422,
            "currency"),
        Arguments.of(
            "lower-case currency",
            "POST",
            "/orders",
            order("\"c\"", "\"eur\"", lines(1)),
            "application/json",
            null,
            422,
            "currency"),
        Arguments.of(
            "missing lines",
            "POST",
            "/orders",
            "{\"customerId\":\"c\",\"currency\":\"EUR\"}",
            "application/json",
            null,
            422,
            "lines"),
        Arguments.of(
            "no lines",
            "POST",
            "/orders",
            order("\"c\"", "\"EUR\"", "[]"),
            "application/json",
            null,
            422,
            "lines"),
        Arguments.of(
            "too many lines",
            "POST",
            "/orders",
            order("\"c\"", "\"EUR\"", lines(NewOrder.MAX_LINES + 1)),
            "application/json",
            null,
            422,
            "lines"),
        Arguments.of(
            "zero quantity",
            "POST",
            "/orders",
            order("\"c\"", "\"EUR\"", "[{\"sku\":\"A\",\"quantity\":0,\"unitPrice\":\"1\"}]"),
            "application/json",
            null,
            422,
            "lines[0].quantity"),
        Arguments.of(
            "negative quantity",
            "POST",
            "/orders",
            order(
                "\"c\"",
                "\"EUR\"",
                "[" + GOOD_LINE + ",{\"sku\":\"B\",\"quantity\":-2,\"unitPrice\":\"1\"}]"),
            "application/json",
            null,
            422,
            "lines[1].quantity"),
        Arguments.of(
            "fractional quantity",
            "POST",
            "/orders",
            order("\"c\"", "\"EUR\"", "[{\"sku\":\"A\",\"quantity\":1.5,\"unitPrice\":\"1\"}]"),
            "application/json",
            null,
            422,
            "lines[0].quantity"),
        Arguments.of(
            "negative unit price",
            "POST",
            "/orders",
            order("\"c\"", "\"EUR\"", "[{\"sku\":\"A\",\"quantity\":1,\"unitPrice\":\"-1.00\"}]"),
            "application/json",
            null,
            422,
            "lines[0].unitPrice"),
        Arguments.of(
            "unit price with three decimals",
            "POST",
            "/orders",
            order("\"c\"", "\"EUR\"", "[{\"sku\":\"A\",\"quantity\":1,\"unitPrice\":\"1.005\"}]"),
            "application/json",
            null,
            422,
            "lines[0].unitPrice"),
        Arguments.of(
            "unit price not a number",
            "POST",
            "/orders",
            order("\"c\"", "\"EUR\"", "[{\"sku\":\"A\",\"quantity\":1,\"unitPrice\":\"cheap\"}]"),
            "application/json",
            null,
            422,
            "lines[0].unitPrice"),
        Arguments.of(
            "missing sku",
            "POST",
            "/orders",
            order("\"c\"", "\"EUR\"", "[{\"quantity\":1,\"unitPrice\":\"1\"}]"),
            "application/json",
            null,
            422,
            "lines[0].sku"),
        Arguments.of(
            "unknown channel",
            "POST",
            "/orders",
            "{\"customerId\":\"c\",\"currency\":\"EUR\",\"channel\":\"vip\",\"lines\":"
                + lines(1)
                + "}",
            "application/json",
            null,
            422,
            "channel"),
        Arguments.of(
            "bad invoice series",
            "POST",
            "/orders",
            "{\"customerId\":\"c\",\"currency\":\"EUR\",\"invoiceSeries\":\"a b\",\"lines\":"
                + lines(1)
                + "}",
            "application/json",
            null,
            422,
            "invoiceSeries"),
        Arguments.of(
            "oversized body",
            "POST",
            "/orders",
            "{\"customerId\":\"" + "x".repeat(OrderHttpServer.MAX_BODY_BYTES) + "\"}",
            "application/json",
            null,
            413,
            "body"),
        Arguments.of(
            "not JSON content type",
            "POST",
            "/orders",
            order("\"c\"", "\"EUR\"", lines(1)),
            "text/plain",
            null,
            415,
            "Content-Type"),
        Arguments.of(
            "idempotency key too long",
            "POST",
            "/orders",
            order("\"c\"", "\"EUR\"", lines(1)),
            "application/json",
            "k".repeat(300),
            400,
            "Idempotency-Key"),
        Arguments.of(
            "order id not a UUID", "GET", "/orders/not-a-uuid", null, null, null, 400, "id"),
        Arguments.of(
            "unknown order id", "GET", "/orders/" + unknownId, null, null, null, 404, "id"),
        Arguments.of(
            "cancel unknown order",
            "POST",
            "/orders/" + unknownId + "/cancel",
            "",
            "application/json",
            null,
            404,
            "id"));
  }

  @ParameterizedTest(name = "{0} -> {6}")
  @MethodSource("malformed")
  void isRefusedWithTheRightStatusAndFieldAndWritesNothing(
      String name,
      String method,
      String path,
      String body,
      String contentType,
      String key,
      int status,
      String field)
      throws Exception {
    OrderApiIT.Counts before = counts();
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://localhost:" + server.port() + path));
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    if (key != null) {
      b.header(OrderHttpServer.IDEMPOTENCY_KEY, key);
    }
    b.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());

    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    assertThat(r.headers().firstValue("Content-Type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
    JsonNode problem = JSON.readTree(r.body());
    assertThat(problem.get("status").asInt()).isEqualTo(status);
    assertThat(problem.get("field").asText()).isEqualTo(field);
    assertThat(problem.get("detail").asText()).isNotBlank();
    assertThat(counts()).isEqualTo(before);
  }

  static OrderApiIT.Counts counts() {
    return new OrderApiIT.Counts(
        dsl.fetchCount(dev.ordinal.order.db.Tables.ORDERS),
        dsl.fetchCount(dev.ordinal.order.db.Tables.ORDER_LINE),
        dsl.fetchCount(dev.ordinal.messaging.db.Tables.OUTBOX),
        dsl.fetchCount(dev.ordinal.order.db.Tables.IDEMPOTENCY_KEY));
  }
}
