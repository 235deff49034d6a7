package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordinal.infra.StackConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo in its short form, on its own embedded stack, judged by its JSON summary. */
class DemoIT {

  @Test
  void theShortDemoHoldsEveryInvariantAndSaysSoInItsJsonSummary(@TempDir Path dir)
      throws Exception {
    StringWriter text = new StringWriter();
    boolean ok =
        new DemoRun(
                StackConfig.embedded(dir.resolve("stack")),
                20,
                Duration.ofSeconds(90),
                new PrintWriter(text),
                true)
            .run();

    List<String> lines = text.toString().lines().toList();
    JsonNode summary = new ObjectMapper().readTree(lines.get(lines.size() - 1));
    assertThat(summary.get("invariants").size()).isEqualTo(7);
    summary
        .get("invariants")
        .fields()
        .forEachRemaining(e -> assertThat(e.getValue().asBoolean()).as(e.getKey()).isTrue());
    assertThat(summary.get("orders").asInt()).isEqualTo(20);
    assertThat(summary.get("invoices").asInt()).isEqualTo(20);
    assertThat(summary.get("issued").asInt()).isEqualTo(20);
    assertThat(summary.get("charges").asInt()).isEqualTo(20);
    assertThat(summary.get("duplicatesSkipped").asInt()).isEqualTo(1);
    assertThat(summary.get("integratorDuplicateAttempts").asInt()).isZero();
    assertThat(summary.get("ok").asBoolean()).isTrue();
    assertThat(ok).isTrue();
  }
}
