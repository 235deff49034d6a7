package dev.ordinal.order;

import static dev.ordinal.messaging.db.Tables.OUTBOX;
import static dev.ordinal.order.db.Tables.IDEMPOTENCY_KEY;
import static dev.ordinal.order.db.Tables.ORDERS;
import static dev.ordinal.order.db.Tables.ORDER_LINE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.contracts.EventCodec;
import dev.ordinal.contracts.EventType;
import dev.ordinal.contracts.OrderCancelledV1;
import dev.ordinal.contracts.OrderPlacedV1;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.CallbackExecuteListener;
import org.jooq.impl.DSL;
import org.jooq.impl.DefaultConfiguration;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(OrdinalStackExtension.class)
class OrderApiIT {
  static final ObjectMapper JSON = new ObjectMapper();
  @AutoClose static HikariDataSource pool;
  static DSLContext dsl;
  static OrderService orders;
  @AutoClose static OrderHttpServer server;
  static HttpClient http;
  static final AtomicInteger statements = new AtomicInteger();
  static String base;

  @BeforeAll
  static void start(TestNamespace ns) {
    DatabaseSettings db =
        new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword())
            .withSchema(ns.schema());
    pool = db.pool("orders", 20);
    OrderService.migrate(pool, ns.schema());
    dsl = DSL.using(pool, SQLDialect.POSTGRES);
    // the service's statements are counted: one round trip per write is a claim of its own
    orders =
        new OrderService(
            DSL.using(
                new DefaultConfiguration()
                    .set(pool)
                    .set(SQLDialect.POSTGRES)
                    .set(
                        new CallbackExecuteListener()
                            .onExecuteStart(ctx -> statements.incrementAndGet()))),
            Clock.systemUTC());
    server =
        new OrderHttpServer(orders, ApiAuth.none(), new SimpleMeterRegistry(), Clock.systemUTC())
            .start(0);
    base = "http://localhost:" + server.port();
    http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  }

  @Test
  void thousandOrdersFromSixteenClientsWithThirtyPercentRetriedMakeExactlyThousandOrders()
      throws Exception {
    int before = dsl.fetchCount(ORDERS);
    int beforePlaced = placedEvents();
    String run = UUID.randomUUID().toString();
    int n = 1000;
    List<String> bodies =
        IntStream.range(0, n)
            .mapToObj(
                i ->
                    body(
                        "load-" + (i % 50), "EUR", "[" + line("SKU-" + i, 1 + i % 3, "9.99") + "]"))
            .toList();
    // 300 of the 1,000 are sent twice with the same key: 150 concurrently, 150 afterwards
    Set<Integer> concurrentRetry = new HashSet<>();
    Set<Integer> laterRetry = new HashSet<>();
    for (int i = 0; i < n; i++) {
      if (i % 10 < 3) {
        (i % 2 == 0 ? concurrentRetry : laterRetry).add(i);
      }
    }
    List<String> orderIdByRequest =
        Collections.synchronizedList(new ArrayList<>(Collections.nCopies(n, null)));
    ConcurrentHashMap<Integer, List<HttpResponse<String>>> responses = new ConcurrentHashMap<>();
    ExecutorService clients = Executors.newFixedThreadPool(16);
    try {
      List<Future<?>> sends = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        int request = i;
        String key = run + "-" + i;
        Runnable send =
            () ->
                responses
                    .computeIfAbsent(request, k -> Collections.synchronizedList(new ArrayList<>()))
                    .add(post("/orders", bodies.get(request), key));
        sends.add(clients.submit(send));
        if (concurrentRetry.contains(i)) {
          sends.add(clients.submit(send));
        }
      }
      for (Future<?> f : sends) {
        f.get();
      }
      List<Future<?>> retries = new ArrayList<>();
      for (int i : laterRetry) {
        int request = i;
        retries.add(
            clients.submit(
                () ->
                    responses
                        .get(request)
                        .add(post("/orders", bodies.get(request), run + "-" + request))));
      }
      for (Future<?> f : retries) {
        f.get();
      }
    } finally {
      clients.shutdown();
    }

    int replayed = 0;
    for (int i = 0; i < n; i++) {
      List<HttpResponse<String>> rs = responses.get(i);
      assertThat(rs).hasSize(concurrentRetry.contains(i) || laterRetry.contains(i) ? 2 : 1);
      Set<String> ids = new HashSet<>();
      for (HttpResponse<String> r : rs) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
        ids.add(JSON.readTree(r.body()).get("orderId").asText());
        if (r.headers().firstValue("Idempotent-Replayed").isPresent()) {
          replayed++;
        }
      }
      assertThat(ids).as("one order id per key").hasSize(1);
      assertThat(rs.stream().map(HttpResponse::body).distinct()).as("identical answers").hasSize(1);
      orderIdByRequest.set(i, ids.iterator().next());
    }
    assertThat(replayed).isEqualTo(300);
    assertThat(new HashSet<>(orderIdByRequest)).hasSize(n);
    assertThat(dsl.fetchCount(ORDERS) - before).isEqualTo(n);
    assertThat(placedEvents() - beforePlaced).isEqualTo(n);
    assertThat(
            dsl.fetchCount(
                DSL.selectDistinct(OUTBOX.AGGREGATE_ID)
                    .from(OUTBOX)
                    .where(OUTBOX.EVENT_TYPE.eq(EventType.ORDER_PLACED.wireName()))
                    .and(OUTBOX.AGGREGATE_ID.in(orderIdByRequest))))
        .isEqualTo(n);
    assertThat(dsl.fetchCount(IDEMPOTENCY_KEY, IDEMPOTENCY_KEY.IDEMPOTENCY_KEY_.startsWith(run)))
        .isEqualTo(n);
  }

  @Test
  void theSameKeyWithAnotherBodyIsRefusedAndWritesNothing() throws Exception {
    String key = "reuse-" + UUID.randomUUID();
    HttpResponse<String> first =
        post("/orders", body("c-1", "EUR", "[" + line("A", 1, "1.00") + "]"), key);
    assertThat(first.statusCode()).isEqualTo(201);
    Counts before = counts();
    HttpResponse<String> second =
        post("/orders", body("c-1", "EUR", "[" + line("A", 2, "1.00") + "]"), key);
    assertThat(second.statusCode()).isEqualTo(422);
    assertThat(problemField(second)).isEqualTo("Idempotency-Key");
    assertThat(counts()).isEqualTo(before);
  }

  @Test
  void aTransactionThatFailsAfterWritingTheOrderLeavesNeitherOrderNorOutboxRow() {
    Counts before = counts();
    AtomicReference<PlacedOrder> written = new AtomicReference<>();
    try {
      dsl.transaction(
          c -> {
            written.set(orders.place(c.dsl(), NewOrder.single("doomed", "EUR", BigDecimal.TEN)));
            assertThat(c.dsl().fetchCount(ORDERS, ORDERS.ID.eq(written.get().orderId())))
                .as("visible inside the transaction")
                .isEqualTo(1);
            throw new IllegalStateException("fails after writing the order");
          });
    } catch (IllegalStateException expected) {
      // rolled back
    }
    assertThat(dsl.fetchCount(ORDERS, ORDERS.ID.eq(written.get().orderId()))).isZero();
    assertThat(dsl.fetchCount(OUTBOX, OUTBOX.ID.eq(written.get().messageId()))).isZero();
    assertThat(counts()).isEqualTo(before);
  }

  @Test
  void getAndCancelFollowTheStateMachine() throws Exception {
    HttpResponse<String> created =
        post("/orders", body("c-9", "USD", "[" + line("B", 2, "5.25") + "]"), null);
    assertThat(created.statusCode()).isEqualTo(201);
    String id = JSON.readTree(created.body()).get("orderId").asText();

    HttpResponse<String> got = get("/orders/" + id);
    assertThat(got.statusCode()).isEqualTo(200);
    JsonNode order = JSON.readTree(got.body());
    assertThat(order.get("status").asText()).isEqualTo("PLACED");
    assertThat(order.get("total").asText()).isEqualTo("10.50");

    HttpResponse<String> cancel =
        post("/orders/" + id + "/cancel", "{\"reason\":\"changed mind\"}", null);
    assertThat(cancel.statusCode()).isEqualTo(200);
    JsonNode cancelledBody = JSON.readTree(cancel.body());
    assertThat(cancelledBody.get("status").asText()).isEqualTo("CANCELLED");
    assertThat(cancelledBody.get("total").asText()).isEqualTo("10.50");
    assertThat(cancelledBody.get("lines")).hasSize(1);
    assertThat(cancelledBody.get("lines").get(0).get("sku").asText()).isEqualTo("B");
    assertThat(cancelledBody.get("lines").get(0).get("quantity").asInt()).isEqualTo(2);
    assertThat(cancelledBody.get("cancelledAt")).isNotNull();
    assertThat(JSON.readTree(get("/orders/" + id).body())).isEqualTo(cancelledBody);

    Counts afterFirst = counts();
    HttpResponse<String> again = post("/orders/" + id + "/cancel", "", null);
    assertThat(again.statusCode()).isEqualTo(409);
    assertThat(JSON.readTree(again.body()).get("detail").asText()).contains("already cancelled");
    assertThat(counts()).isEqualTo(afterFirst);
    assertThat(
            dsl.fetchCount(
                OUTBOX,
                OUTBOX
                    .AGGREGATE_ID
                    .eq(id)
                    .and(OUTBOX.EVENT_TYPE.eq(EventType.ORDER_CANCELLED.wireName()))))
        .isEqualTo(1);

    HttpResponse<String> other =
        post("/orders", body("c-9", "USD", "[" + line("C", 1, "1.00") + "]"), null);
    String shippedId = JSON.readTree(other.body()).get("orderId").asText();
    dsl.update(ORDERS)
        .set(ORDERS.STATUS, "SHIPPED")
        .where(ORDERS.ID.eq(UUID.fromString(shippedId)))
        .execute();
    Counts beforeShipped = counts();
    HttpResponse<String> shipped = post("/orders/" + shippedId + "/cancel", "", null);
    assertThat(shipped.statusCode()).isEqualTo(409);
    assertThat(JSON.readTree(shipped.body()).get("detail").asText()).contains("has shipped");
    assertThat(counts()).isEqualTo(beforeShipped);
  }

  @Test
  void aCancellationsEventGoesWhereItsOrdersEventWent() {
    for (Channel channel : Channel.values()) {
      PlacedOrder placed =
          orders.place(
              NewOrder.single("ch-" + channel, "EUR", BigDecimal.ONE).withChannel(channel));
      CancelOutcome outcome = orders.cancel(placed.orderId(), "wrong address");
      assertThat(outcome.result()).isEqualTo(CancelOutcome.Result.CANCELLED);
      assertThat(outcome.order().orElseThrow().channel()).isEqualTo(channel);
      assertThat(outcome.order().orElseThrow().lines()).hasSize(1);
      UUID messageId = outcome.messageId().orElseThrow();
      var row = dsl.selectFrom(OUTBOX).where(OUTBOX.ID.eq(messageId)).fetchOne();
      assertThat(row.getAggregateType()).isEqualTo(OrderEvents.aggregateType(channel));
      assertThat(row.getAggregateId()).isEqualTo(placed.orderId().toString());
      assertThat(row.getEventType()).isEqualTo(EventType.ORDER_CANCELLED.wireName());
      OrderCancelledV1 cancelled =
          EventCodec.fromJson(row.getPayload().data(), OrderCancelledV1.class);
      assertThat(cancelled.orderId()).isEqualTo(placed.orderId());
      assertThat(cancelled.reason()).isEqualTo("wrong address");
      assertThat(cancelled.cancelledAt()).isNotNull();
      // the placement's event, as PostgreSQL keeps it, is the contract's record of the order
      var placedRow = dsl.selectFrom(OUTBOX).where(OUTBOX.ID.eq(placed.messageId())).fetchOne();
      assertThat(placedRow.getEventType()).isEqualTo(EventType.ORDER_PLACED.wireName());
      assertThat(EventCodec.fromJson(placedRow.getPayload().data(), OrderPlacedV1.class))
          .isEqualTo(
              new OrderPlacedV1(
                  placed.orderId(),
                  "ch-" + channel,
                  "EUR",
                  dev.ordinal.contracts.Channel.valueOf(channel.name()),
                  null,
                  new BigDecimal("1.00"),
                  List.of(new OrderPlacedV1.Line("ITEM", 1, BigDecimal.ONE)),
                  placed.placedAt()));
      assertThat(orders.cancel(placed.orderId(), "again").result())
          .isEqualTo(CancelOutcome.Result.ALREADY_CANCELLED);
      assertThat(
              dsl.fetchCount(
                  OUTBOX,
                  OUTBOX
                      .AGGREGATE_ID
                      .eq(placed.orderId().toString())
                      .and(OUTBOX.EVENT_TYPE.eq(EventType.ORDER_CANCELLED.wireName()))))
          .isEqualTo(1);
    }
    assertThat(orders.cancel(UUID.randomUUID(), null).result())
        .isEqualTo(CancelOutcome.Result.NOT_FOUND);
  }

  @Test
  void aKeyedOrderAndACancellationAreOneStatementEach() throws Exception {
    String key = "one-trip-" + UUID.randomUUID();
    String body = body("c-1", "EUR", "[" + line("A", 1, "1.00") + "," + line("B", 2, "2.00") + "]");
    statements.set(0);
    HttpResponse<String> created = post("/orders", body, key);
    assertThat(created.statusCode()).isEqualTo(201);
    assertThat(statements.get()).as("order, 2 lines, event and key: one statement").isEqualTo(1);

    statements.set(0);
    HttpResponse<String> replayed = post("/orders", body, key);
    assertThat(replayed.body()).isEqualTo(created.body());
    assertThat(statements.get()).as("the refused write, then the stored answer").isEqualTo(2);

    String id = JSON.readTree(created.body()).get("orderId").asText();
    statements.set(0);
    assertThat(post("/orders/" + id + "/cancel", "", null).statusCode()).isEqualTo(200);
    assertThat(statements.get()).as("update, event and the order read back: one").isEqualTo(1);
  }

  @Test
  void theRequestsTraceContextTravelsWithTheEventAndItsTraceIdIsOnTheRequestsLogLines()
      throws Exception {
    String trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    String traceparent = "00-" + trace + "-00f067aa0ba902b7-01";
    ch.qos.logback.classic.Logger serverLog =
        (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(OrderHttpServer.class);
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> lines =
        new ch.qos.logback.core.read.ListAppender<>();
    lines.start();
    serverLog.addAppender(lines);
    try {
      HttpResponse<String> created =
          send(
              HttpRequest.newBuilder(URI.create(base + "/orders"))
                  .header("Content-Type", "application/json")
                  .header("traceparent", traceparent)
                  .header("tracestate", "ordinal=t1")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          body("t-1", "EUR", "[" + line("T", 1, "1.00") + "]")))
                  .build());
      assertThat(created.statusCode()).isEqualTo(201);
      UUID messageId = UUID.fromString(JSON.readTree(created.body()).get("messageId").asText());
      String orderId = JSON.readTree(created.body()).get("orderId").asText();
      assertThat(
              dsl.select(OUTBOX.TRACEPARENT, OUTBOX.TRACESTATE)
                  .from(OUTBOX)
                  .where(OUTBOX.ID.eq(messageId))
                  .fetchSingle()
                  .intoList())
          .containsExactly(traceparent, "ordinal=t1");
      // then 5 requests without a trace context: their lines carry no trace id
      List<String> untraced = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        HttpResponse<String> r =
            post("/orders", body("t-2", "EUR", "[" + line("U", 1, "1.00") + "]"), null);
        untraced.add(JSON.readTree(r.body()).get("orderId").asText());
      }
      assertThat(post("/orders/" + orderId + "/cancel", "", null).statusCode()).isEqualTo(200);

      Map<String, String> traceIds = new java.util.LinkedHashMap<>();
      for (var e : List.copyOf(lines.list)) {
        traceIds.put(
            e.getFormattedMessage(),
            e.getMDCPropertyMap().getOrDefault(dev.ordinal.runtime.LogContext.TRACE_ID, "none"));
      }
      assertThat(traceIds).containsEntry("Order " + orderId + " placed", trace);
      for (String id : untraced) {
        assertThat(traceIds).containsEntry("Order " + id + " placed", "none");
      }
      assertThat(traceIds).containsEntry("Order " + orderId + " cancelled", "none");
      assertThat(traceIds).hasSize(7);
    } finally {
      serverLog.detachAppender(lines);
    }
  }

  static String body(String customer, String currency, String lines) {
    return MalformedRequestsIT.order(JsonText.quoted(customer), JsonText.quoted(currency), lines);
  }

  static String line(String sku, int quantity, String unitPrice) {
    return JsonText.object(
        "sku",
        JsonText.quoted(sku),
        "quantity",
        String.valueOf(quantity),
        "unitPrice",
        JsonText.quoted(unitPrice));
  }

  static int placedEvents() {
    return dsl.fetchCount(OUTBOX, OUTBOX.EVENT_TYPE.eq(EventType.ORDER_PLACED.wireName()));
  }

  record Counts(int orders, int lines, int outbox, int keys) {}

  static Counts counts() {
    return new Counts(
        dsl.fetchCount(ORDERS),
        dsl.fetchCount(ORDER_LINE),
        dsl.fetchCount(OUTBOX),
        dsl.fetchCount(IDEMPOTENCY_KEY));
  }

  static String problemField(HttpResponse<String> r) throws Exception {
    JsonNode n = JSON.readTree(r.body());
    return n.hasNonNull("field") ? n.get("field").asText() : null;
  }

  static HttpResponse<String> post(String path, String body, String key) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (key != null) {
      b.header(OrderHttpServer.IDEMPOTENCY_KEY, key);
    }
    return send(b.build());
  }

  static HttpResponse<String> get(String path) {
    return send(HttpRequest.newBuilder(URI.create(base + path)).GET().build());
  }

  static HttpResponse<String> send(HttpRequest request) {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
