package dev.ordinal.order;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
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
  static final String TOO_LARGE =
      "The request body is larger than " + OrderHttpServer.MAX_BODY_BYTES + " bytes.";

  /** 11 MiB: far over the limit, as a client uploading a file by mistake would send. */
  static final int HUGE = 11 * 1024 * 1024;

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
                ApiAuth.none(),
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
    return JsonText.object("customerId", customer, "currency", currency, "lines", lines);
  }

  /** A good order of customer "c" in EUR, one line, whose invoiceSeries is {@code series} (raw). */
  static String orderInSeries(String series) {
    return JsonText.object(
        "customerId", "\"c\"", "currency", "\"EUR\"", "invoiceSeries", series, "lines", lines(1));
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
            orderInSeries("\"a b\""),
            "application/json",
            null,
            422,
            "invoiceSeries"),
        Arguments.of(
            "duplicate customerId",
            "POST",
            "/orders",
            "{\"customerId\":\"c1\",\"customerId\":\"c2\",\"currency\":\"EUR\",\"lines\":"
                + lines(1)
                + "}",
            "application/json",
            null,
            422,
            "customerId"),
        Arguments.of(
            "duplicate customerId with an Idempotency-Key",
            "POST",
            "/orders",
            "{\"customerId\":\"c1\",\"currency\":\"EUR\",\"customerId\":\"c2\",\"lines\":"
                + lines(1)
                + "}",
            "application/json",
            "dup-" + UUID.randomUUID(),
            422,
            "customerId"),
        Arguments.of(
            "duplicate key in a line",
            "POST",
            "/orders",
            order(
                "\"c\"",
                "\"EUR\"",
                "["
                    + GOOD_LINE
                    + ",{\"sku\":\"A\",\"quantity\":1,\"sku\":\"B\",\"unitPrice\":\"1\"}]"),
            "application/json",
            null,
            422,
            "lines[1].sku"),
        Arguments.of(
            "duplicate lines",
            "POST",
            "/orders",
            "{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":"
                + lines(1)
                + ",\"lines\":"
                + lines(2)
                + "}",
            "application/json",
            null,
            422,
            "lines"),
        Arguments.of(
            "NUL in customerId",
            "POST",
            "/orders",
            order("\"c\\u0000\"", "\"EUR\"", lines(1)),
            "application/json",
            null,
            422,
            "customerId"),
        Arguments.of(
            "NUL in sku",
            "POST",
            "/orders",
            order(
                "\"c\"", "\"EUR\"", "[{\"sku\":\"A\\u0000\",\"quantity\":1,\"unitPrice\":\"1\"}]"),
            "application/json",
            null,
            422,
            "lines[0].sku"),
        Arguments.of(
            "NUL in invoiceSeries",
            "POST",
            "/orders",
            orderInSeries("\"F\\u0000\""),
            "application/json",
            null,
            422,
            "invoiceSeries"),
        Arguments.of(
            "NUL in customerId with an Idempotency-Key",
            "POST",
            "/orders",
            order("\"\\u0000\"", "\"EUR\"", lines(1)),
            "application/json",
            "nul-" + UUID.randomUUID(),
            422,
            "customerId"),
        Arguments.of(
            "NUL in cancel reason",
            "POST",
            "/orders/" + unknownId + "/cancel",
            "{\"reason\":\"oops\\u0000\"}",
            "application/json",
            null,
            422,
            "reason"),
        Arguments.of(
            "duplicate cancel reason",
            "POST",
            "/orders/" + unknownId + "/cancel",
            "{\"reason\":\"a\",\"reason\":\"b\"}",
            "application/json",
            null,
            422,
            "reason"),
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

  @Test
  void theDetailNamesTheRepeatedKeyAndTheNulCharacter() throws Exception {
    Map<String, String> details = new LinkedHashMap<>();
    details.put(
        "{\"customerId\":\"c1\",\"customerId\":\"c2\",\"currency\":\"EUR\",\"lines\":"
            + lines(1)
            + "}",
        "customerId appears more than once in the body; send each field once.");
    details.put(
        order("\"c\"", "\"EUR\"", "[{\"sku\":\"A\",\"sku\":\"B\",\"quantity\":1,\"unitPrice\":1}]"),
        "lines[0].sku appears more than once in the body; send each field once.");
    details.put(
        order("\"c1\\u0000\"", "\"EUR\"", lines(1)),
        "customerId must not contain the NUL character (\\u0000).");
    details.put(
        order("\"c\"", "\"EUR\"", "[{\"sku\":\"\\u0000\",\"quantity\":1,\"unitPrice\":1}]"),
        "lines[0].sku must not contain the NUL character (\\u0000).");
    for (Map.Entry<String, String> c : details.entrySet()) {
      OrderApiIT.Counts before = counts();
      HttpResponse<String> r = post("/orders", c.getKey(), null);
      JsonNode problem =
          assertProblem(r.statusCode(), r.headers().firstValue("Content-Type"), r.body(), 422);
      assertThat(problem.get("detail").asText()).isEqualTo(c.getValue());
      assertThat(counts()).isEqualTo(before);
    }
  }

  @Test
  void aBodyWithARepeatedKeyIsNotTakenForAReplayOfTheSameKey() throws Exception {
    String key = "replay-" + UUID.randomUUID();
    HttpResponse<String> first = post("/orders", order("\"c1\"", "\"EUR\"", lines(1)), key);
    assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
    OrderApiIT.Counts before = counts();

    // customerId given twice: "last one wins" would take this for the first body and replay it
    HttpResponse<String> r =
        post(
            "/orders",
            "{\"customerId\":\"c2\",\"customerId\":\"c1\",\"currency\":\"EUR\",\"lines\":"
                + lines(1)
                + "}",
            key);

    JsonNode problem =
        assertProblem(r.statusCode(), r.headers().firstValue("Content-Type"), r.body(), 422);
    assertThat(problem.get("field").asText()).isEqualTo("customerId");
    assertThat(r.headers().firstValue("Idempotent-Replayed")).isEmpty();
    assertThat(counts()).isEqualTo(before);
  }

  @Test
  void aCancelReasonWithNulOrGivenTwiceLeavesThePlacedOrderAsItWas() throws Exception {
    HttpResponse<String> placed = post("/orders", order("\"c\"", "\"EUR\"", lines(1)), null);
    assertThat(placed.statusCode()).as(placed.body()).isEqualTo(201);
    String id = JSON.readTree(placed.body()).get("orderId").asText();
    OrderApiIT.Counts before = counts();

    for (String body :
        new String[] {"{\"reason\":\"\\u0000\"}", "{\"reason\":\"a\",\"reason\":\"b\"}"}) {
      HttpResponse<String> r = post("/orders/" + id + "/cancel", body, null);
      JsonNode problem =
          assertProblem(r.statusCode(), r.headers().firstValue("Content-Type"), r.body(), 422);
      assertThat(problem.get("field").asText()).isEqualTo("reason");
    }

    assertThat(counts()).isEqualTo(before);
    HttpResponse<String> got =
        http.send(
            HttpRequest.newBuilder(
                    URI.create("http://localhost:" + server.port() + "/orders/" + id))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(JSON.readTree(got.body()).get("status").asText()).isEqualTo("PLACED");
  }

  @Test
  void elevenMegabytesWithContentLengthGet413FromTheJdkClient() throws Exception {
    OrderApiIT.Counts before = counts();
    HttpResponse<String> r = postOrder(HttpRequest.BodyPublishers.ofByteArray(hugeOrder()));

    assertTooLarge(r);
    assertThat(r.headers().firstValue("Connection")).hasValue("close");
    assertThat(counts()).isEqualTo(before);
  }

  @Test
  void elevenMegabytesWithContentLengthWrittenWholeBeforeReadingGet413() throws Exception {
    uploadHugeOrderWritingNothing(
        (socket, body) -> {
          OutputStream out = withContentLength(socket, body);
          // the whole upload first, as a client that reads only afterwards does: no reset on the
          // way
          out.write(body);
          out.flush();

          assertTooLargeAndClosed(RawResponse.read(socket.getInputStream()));
          assertThat(socket.getInputStream().read()).isEqualTo(-1);
        });
  }

  @Test
  void elevenMegabytesWithContentLengthAreAnsweredBeforeTheBodyIsSent() throws Exception {
    uploadHugeOrderWritingNothing(
        (socket, body) -> {
          OutputStream out = withContentLength(socket, body);
          out.flush();

          // answered from Content-Length alone: not one byte of the body has been sent yet
          assertTooLargeAndClosed(RawResponse.read(socket.getInputStream()));

          // a client that goes on sending anyway can finish: the server reads and drops the rest
          out.write(body);
          out.flush();
          assertThat(socket.getInputStream().read()).isEqualTo(-1);
        });
  }

  @Test
  void elevenMegabytesChunkedGet413FromTheJdkClient() throws Exception {
    OrderApiIT.Counts before = counts();
    byte[] body = hugeOrder();
    // a body of unknown length: sent chunked, without Content-Length
    HttpResponse<String> r =
        postOrder(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)));

    assertTooLarge(r);
    assertThat(counts()).isEqualTo(before);
  }

  @Test
  void elevenMegabytesChunkedWrittenWholeBeforeReadingGet413() throws Exception {
    uploadHugeOrderWritingNothing(
        (socket, body) -> {
          OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
          out.write(head("Transfer-Encoding: chunked"));
          for (int at = 0; at < body.length; at += 8192) {
            int n = Math.min(8192, body.length - at);
            out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body, at, n);
            out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
          }
          out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
          out.flush();

          RawResponse r = RawResponse.read(socket.getInputStream());

          assertTooLarge(r);
        });
  }

  /** What a test does with a fresh socket to the server and the 11 MiB order to send on it. */
  interface HugeUpload {
    void run(Socket socket, byte[] body) throws Exception;
  }

  /**
   * Runs {@code upload} on a fresh socket with {@link #hugeOrder()}, then asserts that nothing was
   * written.
   */
  static void uploadHugeOrderWritingNothing(HugeUpload upload) throws Exception {
    OrderApiIT.Counts before = counts();
    byte[] body = hugeOrder();
    try (Socket socket = socket()) {
      upload.run(socket, body);
    }
    assertThat(counts()).isEqualTo(before);
  }

  /** A syntactically plausible order whose customerId alone is 11 MiB. */
  static byte[] hugeOrder() {
    byte[] body = new byte[HUGE];
    Arrays.fill(body, (byte) 'x');
    byte[] start = "{\"customerId\":\"".getBytes(StandardCharsets.US_ASCII);
    byte[] end =
        ("\",\"currency\":\"EUR\",\"lines\":" + lines(1) + "}").getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(start, 0, body, 0, start.length);
    System.arraycopy(end, 0, body, body.length - end.length, end.length);
    return body;
  }

  static Socket socket() throws IOException {
    Socket socket = new Socket("localhost", server.port());
    socket.setSoTimeout(30_000);
    return socket;
  }

  /** Writes the head of a POST of {@code body} with its Content-Length; returns the stream. */
  static OutputStream withContentLength(Socket socket, byte[] body) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(head("Content-Length: " + body.length));
    return out;
  }

  /** POSTs {@code body} to /orders as JSON with the JDK client (60 s timeout). */
  static HttpResponse<String> postOrder(HttpRequest.BodyPublisher body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://localhost:" + server.port() + "/orders"))
            .header("Content-Type", "application/json")
            .timeout(Duration.ofSeconds(60))
            .POST(body)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static byte[] head(String framing) {
    return ("POST /orders HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            + framing
            + "\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  static HttpResponse<String> post(String path, String body, String key) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://localhost:" + server.port() + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      b.header(OrderHttpServer.IDEMPOTENCY_KEY, key);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static JsonNode assertProblem(int status, Optional<String> contentType, String body, int expected)
      throws IOException {
    assertThat(status).as(body).isEqualTo(expected);
    assertThat(contentType)
        .hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
    JsonNode problem = JSON.readTree(body);
    assertThat(problem.get("type").asText()).isEqualTo("about:blank");
    assertThat(problem.get("status").asInt()).isEqualTo(expected);
    return problem;
  }

  static void assertTooLarge(int status, Optional<String> contentType, String body)
      throws IOException {
    JsonNode problem = assertProblem(status, contentType, body, 413);
    assertThat(problem.get("title").asText()).isEqualTo("Body too large");
    assertThat(problem.get("detail").asText()).isEqualTo(TOO_LARGE);
    assertThat(problem.get("field").asText()).isEqualTo("body");
  }

  static void assertTooLarge(HttpResponse<String> r) throws IOException {
    assertTooLarge(r.statusCode(), r.headers().firstValue("Content-Type"), r.body());
  }

  static void assertTooLarge(RawResponse r) throws IOException {
    assertTooLarge(r.status(), r.header("Content-Type"), r.body());
  }

  /** A 413 after which the server closes the connection. */
  static void assertTooLargeAndClosed(RawResponse r) throws IOException {
    assertTooLarge(r);
    assertThat(r.header("Connection")).hasValue("close");
  }

  /** An HTTP/1.1 response read off a socket: status line, headers, Content-Length body. */
  record RawResponse(int status, Map<String, String> headers, String body) {
    Optional<String> header(String name) {
      return Optional.ofNullable(headers.get(name.toLowerCase(Locale.ROOT)));
    }

    static RawResponse read(InputStream in) throws IOException {
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
        int c = in.read();
        assertThat(c).as("response ended inside its head: %s", head).isNotEqualTo(-1);
        head.write(c);
      }
      String[] lines = head.toString(StandardCharsets.US_ASCII).split("\r\n");
      Map<String, String> headers = new LinkedHashMap<>();
      for (int i = 1; i < lines.length; i++) {
        int colon = lines[i].indexOf(':');
        headers.put(
            lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
            lines[i].substring(colon + 1).trim());
      }
      int length = Integer.parseInt(headers.get("content-length"));
      String body = new String(in.readNBytes(length), StandardCharsets.UTF_8);
      return new RawResponse(Integer.parseInt(lines[0].split(" ")[1]), headers, body);
    }
  }

  static OrderApiIT.Counts counts() {
    return new OrderApiIT.Counts(
        dsl.fetchCount(dev.ordinal.order.db.Tables.ORDERS),
        dsl.fetchCount(dev.ordinal.order.db.Tables.ORDER_LINE),
        dsl.fetchCount(dev.ordinal.messaging.db.Tables.OUTBOX),
        dsl.fetchCount(dev.ordinal.order.db.Tables.IDEMPOTENCY_KEY));
  }
}
