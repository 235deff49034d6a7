package dev.ordinal.lab.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.ordinal.contracts.EventType;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.PaymentGatewaySimulator;
import dev.ordinal.messaging.kafka.MessageHeaders;
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
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
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
 * placed with a W3C {@code traceparent} becomes an {@code OrderPlaced} record and then an {@code
 * InvoiceIssued} record whose {@code traceparent} has the same trace id and a span id of billing's
 * own (the issuer's span, child of the inbox's, child of the HTTP request's); order-service and
 * billing export spans of that trace over OTLP.
 */
@ExtendWith(OrdinalStackExtension.class)
class TracingIT {
  static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  static final String CALLER_SPAN = "00f067aa0ba902b7";

  @TempDir Path home;

  @Test
  void oneTraceIdFromPostOrdersToTheInvoiceIssuedEvent(TestNamespace ns) throws Exception {
    List<byte[]> exported = new CopyOnWriteArrayList<>();
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
    Map<String, String> tracing =
        Map.of(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            "http://127.0.0.1:" + otlp.getAddress().getPort(),
            "OTEL_BSP_SCHEDULE_DELAY",
            "200");
    String orders = ns.schema("orders_traced");
    String billing = ns.schema("billing_traced");
    int port = DemoCluster.freePort();
    List<ServiceProcess> started = new CopyOnWriteArrayList<>();
    try (IntegratorSimulator integrator = IntegratorSimulator.instant();
        PaymentGatewaySimulator gateway = PaymentGatewaySimulator.instant()) {
      started.add(
          ProductProcesses.ready(
              ns,
              home,
              "order-service",
              List.of("order-service", "--schema", orders, "--port", "" + port, "--auth", "none"),
              tracing));
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

      HttpResponse<String> placed =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/orders"))
                      .header("Content-Type", "application/json")
                      .header(Tracing.TRACEPARENT, "00-" + TRACE_ID + "-" + CALLER_SPAN + "-01")
                      .POST(
                          HttpRequest.BodyPublishers.ofString(
                              "{\"customerId\":\"c-1\",\"currency\":\"EUR\",\"lines\":[{\"sku\":"
                                  + "\"A\",\"quantity\":1,\"unitPrice\":\"9.90\"}]}"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
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

      byte[] traceId = HexFormat.of().parseHex(TRACE_ID);
      for (String service : List.of("ordinal-order-service", "ordinal-billing")) {
        await("spans of " + service + " in the trace, exported over OTLP")
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    exported.stream()
                        .anyMatch(
                            b ->
                                contains(b, service.getBytes(StandardCharsets.UTF_8))
                                    && contains(b, traceId)));
      }
      System.out.printf("tracing: %d OTLP export requests received%n", exported.size());
    } finally {
      for (ServiceProcess p : started) {
        p.stop(Duration.ofSeconds(30));
      }
      otlp.stop(0);
    }
  }

  private static boolean contains(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }
}
