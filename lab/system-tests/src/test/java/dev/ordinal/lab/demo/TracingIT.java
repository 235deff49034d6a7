package dev.ordinal.lab.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.ordinal.contracts.EventType;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.PaymentGatewaySimulator;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.runtime.LogContext;
import dev.ordinal.runtime.Tracing;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import dev.ordinal.testkit.TopicReads;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * One trace across the processes: order-service, the relay and billing, each a {@code ./ordinal}
 * command in a JVM of its own with an OTLP endpoint configured (a receiver in this test). An order
 * placed with a W3C {@code traceparent} and {@code tracestate} becomes an {@code OrderPlaced}
 * record and then an {@code InvoiceIssued} record whose {@code traceparent} has the same trace id
 * and a span id of billing's own (the issuer's span, child of the inbox's, child of the HTTP
 * request's), both with the request's {@code tracestate}; order-service and billing export spans of
 * that trace over OTLP, and the relay a PRODUCER span per event, the child of the row's
 * traceparent; order-service's log line of the request carries the trace id.
 */
@ExtendWith(OrdinalStackExtension.class)
class TracingIT {
  static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  static final String CALLER_SPAN = "00f067aa0ba902b7";
  static final String TRACESTATE = "ordinal=t1";

  /** OTLP's {@code SPAN_KIND_PRODUCER}. */
  static final long PRODUCER = 4;

  @TempDir Path home;

  @Test
  void oneTraceIdFromPostOrdersToTheInvoiceIssuedEvent(TestNamespace ns) throws Exception {
    List<byte[]> exported = new CopyOnWriteArrayList<>();
    HttpServer otlp = otlpReceiver(exported);
    Map<String, String> tracing =
        Map.of(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "http://127.0.0.1:" + otlp.getAddress().getPort(),
            "OTEL_BSP_SCHEDULE_DELAY",
            "200");
    int port = DemoCluster.freePort();
    List<ServiceProcess> started = new CopyOnWriteArrayList<>();
    try (IntegratorSimulator integrator = IntegratorSimulator.instant();
        PaymentGatewaySimulator gateway = PaymentGatewaySimulator.instant()) {
      startServices(ns, port, tracing, integrator, gateway, started);
      HttpResponse<String> placed = placeTracedOrder(port);
      assertThat(placed.statusCode()).as(placed.body()).isEqualTo(201);

      String bootstrap = ns.stack().kafkaBootstrap();
      ConsumerRecord<String, String> order =
          TopicReads.onlyRecord(
              bootstrap, ns.topicPrefix() + ".order", ns.group("probe"), Duration.ofSeconds(90));
      ConsumerRecord<String, String> invoice =
          TopicReads.onlyRecord(
              bootstrap,
              ns.topicPrefix() + ".invoice",
              ns.group("probe-invoice"),
              Duration.ofSeconds(90));
      String orderTrace = MessageHeaders.get(order.headers(), Tracing.TRACEPARENT).orElseThrow();
      String invoiceTrace =
          MessageHeaders.get(invoice.headers(), Tracing.TRACEPARENT).orElseThrow();
      System.out.printf(
          "tracing: POST traceparent 00-%s-%s-01, OrderPlaced %s, InvoiceIssued %s%n",
          TRACE_ID, CALLER_SPAN, orderTrace, invoiceTrace);
      assertThat(MessageHeaders.get(invoice.headers(), MessageHeaders.EVENT_TYPE))
          .contains(EventType.INVOICE_ISSUED.wireName());
      assertThat(invoice.key()).isEqualTo(order.key());
      assertThat(Tracing.traceId(orderTrace)).contains(TRACE_ID);
      assertThat(Tracing.traceId(invoiceTrace)).contains(TRACE_ID);
      // each hop is a span of its own: the request's, then billing's issuer's
      assertThat(orderTrace).doesNotContain(CALLER_SPAN);
      assertThat(invoiceTrace).isNotEqualTo(orderTrace).doesNotContain(CALLER_SPAN);
      // the request's tracestate travels with it, through billing's outbox too
      assertThat(MessageHeaders.get(order.headers(), Tracing.TRACESTATE)).contains(TRACESTATE);
      assertThat(MessageHeaders.get(invoice.headers(), Tracing.TRACESTATE)).contains(TRACESTATE);

      assertSpansExported(exported, ns, orderTrace, invoiceTrace);
      assertLoggedWithTheTraceId("\"message\":\"Order " + order.key() + " placed\"");
    } finally {
      for (ServiceProcess p : started) {
        p.stop(Duration.ofSeconds(30));
      }
      otlp.stop(0);
    }
  }

  /** An OTLP/HTTP receiver on a free port that keeps each export request's body. */
  private static HttpServer otlpReceiver(List<byte[]> exported) throws Exception {
    HttpServer otlp = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    otlp.createContext(
        "/v1/traces",
        exchange -> {
          ByteArrayOutputStream body = new ByteArrayOutputStream();
          exchange.getRequestBody().transferTo(body);
          exported.add(body.toByteArray());
          exchange.getResponseHeaders().add("Content-Type", "application/x-protobuf");
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    otlp.start();
    return otlp;
  }

  /**
   * order-service (its log in JSON lines), billing and the relay, ready, added to {@code started}.
   */
  private void startServices(
      TestNamespace ns,
      int port,
      Map<String, String> tracing,
      IntegratorSimulator integrator,
      PaymentGatewaySimulator gateway,
      List<ServiceProcess> started)
      throws Exception {
    String orders = ns.schema("orders_traced");
    String billing = ns.schema("billing_traced");
    started.add(
        ProductProcesses.ready(
            ns,
            home,
            "order-service",
            List.of("order-service", "--schema", orders, "--port", "" + port, "--auth", "none"),
            withJsonLog(tracing)));
    started.add(
        ProductProcesses.ready(
            ns,
            home,
            "billing",
            List.of(
                "billing",
                "--schema",
                billing,
                "--topic-prefix",
                ns.topicPrefix(),
                "--group",
                ns.group("billing"),
                "--integrator-url",
                integrator.baseUri().toString(),
                "--gateway-url",
                gateway.baseUri().toString()),
            tracing));
    started.add(
        ProductProcesses.ready(
            ns,
            home,
            "relay",
            List.of(
                "relay", "--schema", orders + "," + billing, "--topic-prefix", ns.topicPrefix()),
            tracing));
  }

  /** {@code POST /orders} with the caller's {@code traceparent} and {@code tracestate}. */
  private static HttpResponse<String> placeTracedOrder(int port) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders"))
                .header("Content-Type", "application/json")
                .header(Tracing.TRACEPARENT, "00-" + TRACE_ID + "-" + CALLER_SPAN + "-01")
                .header(Tracing.TRACESTATE, TRACESTATE)
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"customerId\":\"c-1\",\"currency\":\"EUR\",\"lines\":[{\"sku\":"
                            + "\"A\",\"quantity\":1,\"unitPrice\":\"9.90\"}]}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  /**
   * Spans of the trace from order-service and billing, and the relay's PRODUCER span of each event,
   * the child of the row's traceparent with the row's tracestate, one per event.
   */
  private static void assertSpansExported(
      List<byte[]> exported, TestNamespace ns, String orderTrace, String invoiceTrace) {
    for (String service : List.of("ordinal-order-service", "ordinal-billing")) {
      await("spans of " + service + " in the trace, exported over OTLP")
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  spans(exported).stream()
                      .anyMatch(s -> s.service().equals(service) && s.traceId().equals(TRACE_ID)));
    }
    for (String traceparent : List.of(orderTrace, invoiceTrace)) {
      String topic = ns.topicPrefix() + (traceparent.equals(orderTrace) ? ".order" : ".invoice");
      ExportedSpan expected =
          new ExportedSpan(
              "ordinal-relay",
              TRACE_ID,
              traceparent.substring(36, 52),
              "publish " + topic,
              PRODUCER,
              TRACESTATE);
      await("the relay's span of the event on " + topic + ", exported over OTLP")
          .atMost(Duration.ofSeconds(30))
          .until(() -> spans(exported).contains(expected));
    }
    List<ExportedSpan> inTrace =
        spans(exported).stream().filter(s -> s.traceId().equals(TRACE_ID)).toList();
    long relays = inTrace.stream().filter(s -> s.service().equals("ordinal-relay")).count();
    System.out.printf(
        "tracing: %d OTLP export requests received, %d spans of trace %s, %d of them the relay's%n",
        exported.size(), inTrace.size(), TRACE_ID, relays);
    assertThat(relays).as("one relay span per event").isEqualTo(2);
  }

  /** A JSON line of order-service's log with {@code message} and the trace id, within 10 s. */
  private void assertLoggedWithTheTraceId(String message) {
    Path log = home.resolve("logs").resolve("order-service.log");
    String traceId = "\"" + LogContext.TRACE_ID + "\":\"" + TRACE_ID + "\"";
    await("order-service's log line " + message + " with the trace id")
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                Files.exists(log)
                    && Files.readAllLines(log).stream()
                        .anyMatch(l -> l.contains(message) && l.contains(traceId)));
  }

  /**
   * {@code env} with the product's logging (its {@code logback.xml}, not this module's test one,
   * which the child would find first on the test class path) in JSON lines, so each line's log
   * context is a field of it, in {@code <home>/logs/<name>.log}.
   */
  private static Map<String, String> withJsonLog(Map<String, String> env) {
    Map<String, String> out = new HashMap<>(env);
    out.put("ORDINAL_LOG_FORMAT", "json");
    out.put(
        "JAVA_TOOL_OPTIONS",
        "-Dlogback.configurationFile=" + dev.ordinal.cli.Main.class.getResource("/logback.xml"));
    return out;
  }

  /** What this test reads of an exported span. */
  record ExportedSpan(
      String service,
      String traceId,
      String parentSpanId,
      String name,
      long kind,
      String traceState) {}

  /** The spans of OTLP/protobuf {@code ExportTraceServiceRequest}s. */
  static List<ExportedSpan> spans(List<byte[]> requests) {
    List<ExportedSpan> out = new ArrayList<>();
    for (byte[] request : requests) {
      for (byte[] resourceSpans : OtlpProto.messages(OtlpProto.fields(request), 1)) {
        Map<Integer, List<Object>> rs = OtlpProto.fields(resourceSpans);
        String service = "";
        for (byte[] resource : OtlpProto.messages(rs, 1)) {
          for (byte[] kv : OtlpProto.messages(OtlpProto.fields(resource), 1)) {
            Map<Integer, List<Object>> attribute = OtlpProto.fields(kv);
            if (OtlpProto.text(attribute, 1).equals("service.name")) {
              service =
                  OtlpProto.text(OtlpProto.fields(OtlpProto.messages(attribute, 2).get(0)), 1);
            }
          }
        }
        for (byte[] scopeSpans : OtlpProto.messages(rs, 2)) {
          for (byte[] span : OtlpProto.messages(OtlpProto.fields(scopeSpans), 2)) {
            Map<Integer, List<Object>> f = OtlpProto.fields(span);
            out.add(
                new ExportedSpan(
                    service,
                    OtlpProto.hex(f, 1),
                    OtlpProto.hex(f, 4),
                    OtlpProto.text(f, 5),
                    OtlpProto.number(f, 6),
                    OtlpProto.text(f, 3)));
          }
        }
      }
    }
    return out;
  }

  /** The protobuf wire format, as far as OTLP's trace messages need it. */
  static final class OtlpProto {
    private OtlpProto() {}

    /** Each field number's values: a varint as Long, fixed64 Long, fixed32 Integer, else bytes. */
    static Map<Integer, List<Object>> fields(byte[] message) {
      Map<Integer, List<Object>> out = new HashMap<>();
      ByteBuffer in = ByteBuffer.wrap(message).order(ByteOrder.LITTLE_ENDIAN);
      while (in.hasRemaining()) {
        long tag = varint(in);
        Object value =
            switch ((int) (tag & 7)) {
              case 0 -> varint(in);
              case 1 -> in.getLong();
              case 2 -> {
                byte[] bytes = new byte[(int) varint(in)];
                in.get(bytes);
                yield bytes;
              }
              case 5 -> in.getInt();
              default -> throw new IllegalArgumentException("wire type " + (tag & 7));
            };
        out.computeIfAbsent((int) (tag >>> 3), k -> new ArrayList<>()).add(value);
      }
      return out;
    }

    static List<byte[]> messages(Map<Integer, List<Object>> fields, int field) {
      return fields.getOrDefault(field, List.of()).stream().map(v -> (byte[]) v).toList();
    }

    static String text(Map<Integer, List<Object>> fields, int field) {
      List<byte[]> v = messages(fields, field);
      return v.isEmpty() ? "" : new String(v.get(0), StandardCharsets.UTF_8);
    }

    static String hex(Map<Integer, List<Object>> fields, int field) {
      List<byte[]> v = messages(fields, field);
      return v.isEmpty() ? "" : HexFormat.of().formatHex(v.get(0));
    }

    static long number(Map<Integer, List<Object>> fields, int field) {
      List<Object> v = fields.getOrDefault(field, List.of());
      return v.isEmpty() ? 0 : (Long) v.get(0);
    }

    private static long varint(ByteBuffer in) {
      long value = 0;
      int shift = 0;
      byte b;
      do {
        b = in.get();
        value |= (long) (b & 0x7f) << shift;
        shift += 7;
      } while (b < 0);
      return value;
    }
  }
}
