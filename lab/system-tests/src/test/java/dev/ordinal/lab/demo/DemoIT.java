package dev.ordinal.lab.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordinal.lab.devstack.StackConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo in its short form, with chaos, on its own embedded stack: the services run as child
 * JVMs, the relay and a billing instance are killed with SIGKILL and restarted, and the run is
 * judged by its JSON summary.
 */
class DemoIT {

  @Test
  void theShortChaosDemoHoldsEveryInvariantAndSaysSoInItsJsonSummary(@TempDir Path dir)
      throws Exception {
    StringWriter text = new StringWriter();
    DemoRun.Result result =
        new DemoRun(
                StackConfig.embedded(dir.resolve("stack")),
                new DemoRun.Options(
                    Duration.ofSeconds(20), 0, Duration.ofSeconds(90), true, true, 7L),
                new PrintWriter(text))
            .run()
            .orElseThrow();

    List<String> lines = text.toString().lines().toList();
    JsonNode summary = new ObjectMapper().readTree(lines.get(lines.size() - 1));
    // every invariant held, judged by the same checks as the demo's, and the JSON says so
    Map<Invariant, Verdict> verdicts = InvariantChecks.check(result.evidence());
    JsonNode invariants = summary.get("invariants");
    assertThat(invariants.size()).as(text.toString()).isEqualTo(7);
    verdicts.forEach(
        (invariant, verdict) -> {
          assertThat(verdict.held())
              .as(invariant.key() + ": " + verdict.reason() + "\n" + text)
              .isTrue();
          assertThat(invariants.get(invariant.key()).asBoolean())
              .as(invariant.key() + " in the JSON")
              .isEqualTo(verdict.held());
        });
    int orders = summary.get("orders").asInt();
    assertThat(orders).isGreaterThan(0);
    assertThat(summary.get("invoices").asInt()).isEqualTo(orders);
    assertThat(summary.get("issued").asInt() + summary.get("invoicesCancelled").asInt())
        .isEqualTo(orders - summary.get("invoicesVoided").asInt());
    assertThat(summary.get("inboxRows").asInt())
        .isEqualTo(summary.get("distinctMessageIds").asInt());
    assertThat(summary.get("outboxRows").asInt())
        .isEqualTo(orders + summary.get("cancelled").asInt());
    assertThat(summary.get("duplicatesSkipped").asLong())
        .isGreaterThanOrEqualTo(summary.get("redelivered").asLong());
    assertThat(summary.get("relayKills").asInt())
        .as("chaos in 20 s: a relay kill, a PostgreSQL restart, a billing kill, the broker down")
        .isEqualTo(1);
    assertThat(summary.get("billingKills").asInt()).isEqualTo(1);
    List<String> faults = new java.util.ArrayList<>();
    for (JsonNode f : summary.get("faults")) {
      faults.add(f.get("kind").asText());
      assertThat(f.get("allReadyAfterMs").asLong())
          .as("every service ready again after " + f.get("kind") + "\n" + text)
          .isNotNegative();
      for (JsonNode s : f.get("services")) {
        assertThat(s.get("alive").asBoolean()).as(s.get("name") + " running").isTrue();
      }
    }
    assertThat(faults).containsExactly("KILL_RELAY", "PG_RESTART", "KILL_BILLING", "KAFKA_DOWN");
    assertThat(summary.get("integratorDuplicateAttempts").asInt()).isZero();
    assertThat(summary.get("cancelledBeforePlaced").asInt()).isEqualTo(5);
    assertThat(summary.get("cancelledBeforePlacedBroken").asInt()).isZero();
    assertThat(summary.get("lateAccepts").asInt()).as("late accepts injected").isPositive();
    assertThat(summary.get("integratorDisagrees").asInt()).isZero();
    assertThat(summary.get("settled").asBoolean()).isTrue();
    assertThat(summary.get("ok").asBoolean()).isTrue();
    assertThat(result.summary().exitStatus()).isZero();
  }
}
