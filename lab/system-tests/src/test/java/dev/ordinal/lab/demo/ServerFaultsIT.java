package dev.ordinal.lab.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordinal.lab.demo.FaultInjector.Fault;
import dev.ordinal.lab.demo.FaultInjector.Kind;
import dev.ordinal.lab.devstack.StackConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every service rides out its servers' faults. The demo's system — order-service, the relay of the
 * orders and billing outboxes, two billing instances, each in a JVM of its own — runs under 50
 * interactive orders/s over HTTP (plus bulk batches, cancellations and injected duplicates) while
 * PostgreSQL is restarted twice, every backend is terminated, PostgreSQL is down for 30 s (ten
 * times the payment lease, three times the retention loops' interval) and the broker is down for 45
 * s (past the relay's 30 s delivery timeout). After each fault: no process exited, every service
 * that needs the server answered 503 during the outage and 200 within 15 s of the server's return,
 * and the loops that hit it counted restarts. When the load stops, the invariants hold with exact
 * counts.
 */
class ServerFaultsIT {
  static final Duration READY_WITHIN = Duration.ofSeconds(15);
  static final Duration PG_OUTAGE = Duration.ofSeconds(30);
  static final Duration KAFKA_OUTAGE = Duration.ofSeconds(45);

  static final List<Fault> PLAN =
      List.of(
          Fault.of(Kind.PG_RESTART),
          Fault.of(Kind.PG_RESTART),
          Fault.of(Kind.PG_TERMINATE),
          new Fault(Kind.PG_DOWN, PG_OUTAGE),
          new Fault(Kind.KAFKA_DOWN, KAFKA_OUTAGE));

  @Test
  void everyServiceRidesOutPostgresAndKafkaFaultsUnderLoadAndEveryInvariantHolds()
      throws Exception {
    // under target/, not a temporary folder: the services' logs stay for whoever reads a failure
    Path dir = Path.of("target", "server-faults");
    StringWriter text = new StringWriter();
    DemoRun.Result result =
        new DemoRun(
                StackConfig.embedded(dir.resolve("stack")),
                new DemoRun.Options(
                    Duration.ofSeconds(70), 0, Duration.ofSeconds(240), false, true, 11L, 50, PLAN),
                new PrintWriter(text))
            .run()
            .orElseThrow();
    String log = text.toString();
    // the run's report also in the test's output file, passed or not, to compare against a failure
    System.out.println(log);
    List<String> lines = log.lines().toList();
    JsonNode summary = new ObjectMapper().readTree(lines.get(lines.size() - 1));

    // the load: at least 50 orders/s offered over HTTP while the servers were there
    JsonNode faults = summary.get("faults");
    assertThat(faults.size()).as(log).isEqualTo(PLAN.size());
    for (int i = 0; i < PLAN.size(); i++) {
      JsonNode f = faults.get(i);
      Kind kind = PLAN.get(i).kind();
      assertThat(f.get("kind").asText()).isEqualTo(kind.name());
      for (JsonNode s : f.get("services")) {
        String where = kind + " " + s.get("name").asText() + "\n" + log;
        assertThat(s.get("alive").asBoolean()).as("process still running: " + where).isTrue();
        long readyAfter = s.get("readyAfterMs").asLong();
        assertThat(readyAfter).as("ready again after the return: " + where).isNotNegative();
        assertThat(Duration.ofMillis(readyAfter))
            .as("ready within 15 s of the server's return: " + where)
            .isLessThanOrEqualTo(READY_WITHIN);
        if (kind != Kind.PG_TERMINATE) {
          assertThat(s.get("wentUnready").asBoolean())
              .as("503 during the outage exactly when it needs the server: " + where)
              .isEqualTo(s.get("dependent").asBoolean());
        }
      }
      if (kind == Kind.PG_DOWN) {
        assertThat(f.get("outageMs").asLong()).isGreaterThanOrEqualTo(PG_OUTAGE.toMillis());
      }
    }

    // the loops that hit each fault restarted; the ones that do not use the server did not
    // the relay's own account (its warnings and errors) says why a restart did or did not come
    String relayWarnings = warnings(dir, "relay");
    for (int i = 0; i < PLAN.size(); i++) {
      Map<String, List<String>> restarted = restarted(faults.get(i));
      Kind kind = PLAN.get(i).kind();
      String why = kind + " " + restarted + "\n" + log + "\n" + relayWarnings;
      if (kind.postgres) {
        // the relay's leader lock and replication sessions end with any PostgreSQL fault
        assertThat(restarted.get("relay")).as(why).contains("relay-orders", "relay-billing");
      }
      if (kind == Kind.PG_DOWN) {
        // 30 s without the database: every loop that asks it at least every 10 s fails
        for (String b : List.of("billing-1", "billing-2")) {
          assertThat(restarted.get(b)).as(why).contains("payment-collector", "outbox-retention");
        }
        assertThat(restarted.get("order-service"))
            .as(why)
            .containsExactlyInAnyOrder("outbox-retention", "idempotency-key-retention");
      }
      if (kind == Kind.KAFKA_DOWN) {
        // events kept coming: a relay engine with a record in flight failed its send after 30 s
        // and ran again. Which engine is not fixed: one that hands Kafka no record in the first
        // 15 s of the outage (once in CI relay-orders did not, after the 30 s PostgreSQL outage;
        // a slot still decoding its backlog is the likely cause) is not timed out before the
        // broker is back, and needs no restart
        assertThat(restarted.get("relay")).as(why).containsAnyOf("relay-orders", "relay-billing");
        assertThat(restarted.get("order-service")).as("order-service needs no broker").isEmpty();
      }
    }

    // every invariant held once the load stopped, judged by the demo's checks on its evidence
    Map<Invariant, Verdict> verdicts = InvariantChecks.check(result.evidence());
    assertThat(verdicts).hasSize(7);
    verdicts.forEach(
        (invariant, verdict) ->
            assertThat(verdict.held())
                .as(invariant.key() + ": " + verdict.reason() + "\n" + log)
                .isTrue());
    // and with exact counts
    assertThat(summary.get("settled").asBoolean()).as(log).isTrue();
    int orders = summary.get("orders").asInt();
    assertThat(summary.get("offeredRate").asInt())
        .as("interactive orders offered per second")
        .isEqualTo(50);
    assertThat(orders).as(log).isGreaterThan(1_000);
    assertThat(summary.get("invoices").asInt()).as("one invoice per order").isEqualTo(orders);
    assertThat(
            summary.get("issued").asInt()
                + summary.get("invoicesCancelled").asInt()
                + summary.get("invoicesVoided").asInt())
        .as("every invoice issued, cancelled or voided")
        .isEqualTo(orders);
    assertThat(summary.get("integratorDuplicateAttempts").asInt())
        .as("the integrator never saw a number twice")
        .isZero();
    summary
        .get("series")
        .fields()
        .forEachRemaining(
            s -> assertThat(s.getValue().get("clean").asBoolean()).as(s.getKey()).isTrue());
    assertThat(summary.get("ok").asBoolean()).as(log).isTrue();
    assertThat(result.summary().exitStatus()).isZero();
  }

  /**
   * Per service, the loops whose restart count rose around a fault; every service's counts must
   * have been read (a count that could not be read is unknown, not "no restart").
   */
  private static Map<String, List<String>> restarted(JsonNode fault) {
    Map<String, List<String>> all = new java.util.LinkedHashMap<>();
    for (JsonNode s : fault.get("services")) {
      String name = s.get("name").asText();
      assertThat(s.get("restarts").isObject())
          .as("the loop restarts of " + name + " around " + fault.get("kind").asText() + " read")
          .isTrue();
      List<String> loops = new ArrayList<>();
      s.get("restarts").fieldNames().forEachRemaining(loops::add);
      all.put(name, loops);
    }
    return all;
  }

  /** The last warnings and errors a service logged (first line of each), for a failure message. */
  private static String warnings(Path dir, String service) throws IOException {
    Path file = dir.resolve("logs").resolve(service + ".out");
    if (!Files.exists(file)) {
      return "(no log at " + file + ")";
    }
    List<String> lines;
    try (Stream<String> all = Files.lines(file)) {
      lines =
          all.filter(l -> l.contains(" WARN ") || l.contains(" ERROR "))
              .map(l -> l.length() > 300 ? l.substring(0, 300) + " ..." : l)
              .toList();
    }
    return service
        + "'s last warnings and errors ("
        + file
        + "):\n"
        + String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size()));
  }
}
