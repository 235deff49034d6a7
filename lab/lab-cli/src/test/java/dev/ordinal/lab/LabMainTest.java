package dev.ordinal.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The lab's commands parse and refuse bad input (exit 2) before anything starts. */
class LabMainTest {
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cli = LabMain.commandLine(java.util.Map.of());
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    return cli.execute(args);
  }

  @Test
  void helpListsTheLabsCommands() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString()).contains("demo").contains("up").contains("bench");
  }

  /** picocli formats descriptions with String.format: a lone '%' garbles the help with a WARN. */
  @Test
  void everyCommandsHelpRendersWithoutAFormatWarning() throws Exception {
    java.io.ByteArrayOutputStream warnings = new java.io.ByteArrayOutputStream();
    java.io.PrintStream stderr = System.err;
    java.util.List<String> rendered = new java.util.ArrayList<>();
    System.setErr(new java.io.PrintStream(warnings, true, "UTF-8"));
    try {
      java.util.Deque<CommandLine> todo =
          new java.util.ArrayDeque<>(java.util.List.of(LabMain.commandLine(java.util.Map.of())));
      while (!todo.isEmpty()) {
        CommandLine c = todo.pop();
        rendered.add(c.getCommandSpec().qualifiedName());
        c.getUsageMessage();
        todo.addAll(c.getSubcommands().values());
      }
    } finally {
      System.setErr(stderr);
    }
    assertThat(rendered).contains("ordinal demo", "ordinal up", "ordinal bench orders");
    assertThat(warnings.toString("UTF-8")).doesNotContain("Could not format");
  }

  @Test
  void demoHelpDescribesItsOptions() {
    assertThat(run("demo", "--help")).isZero();
    assertThat(out.toString())
        .contains("--orders")
        .contains("--timeout")
        .contains("--keep-data")
        .contains("--duration")
        .contains("--chaos")
        .contains("each service in a process of its own");
    assertThat(out.toString()).contains("--strategies");
  }

  @Test
  void outOfRangeOrdersAreRefusedWithExitTwoAndNothingStarted() {
    assertThat(run("demo", "--orders", "-1")).isEqualTo(2);
    assertThat(err.toString()).contains("--orders must be between 0 and 10000, not -1");
    assertThat(out.toString()).doesNotContain("Starting");
  }

  @Test
  void aMalformedTimeoutNamesTheOption() {
    assertThat(run("demo", "--timeout", "soon")).isEqualTo(2);
    assertThat(err.toString()).contains("--timeout");
  }

  @Test
  void aMalformedDurationSaysWhatADurationLooksLike() {
    assertThat(run("demo", "--duration", "soon")).isEqualTo(2);
    assertThat(err.toString()).contains("'soon' is not a duration; use e.g. 30s, 2m or PT30S");
  }

  @Test
  void chaosInADriveTooShortForItIsRefused() {
    assertThat(run("demo", "--chaos", "--duration", "5s")).isEqualTo(2);
    assertThat(err.toString()).contains("--chaos needs a --duration of at least 10 s, not 5 s");
    assertThat(out.toString()).doesNotContain("Starting");
  }

  @Test
  void benchRelayHelpListsItsOptions() {
    assertThat(run("bench", "relay", "--help")).isZero();
    assertThat(out.toString())
        .contains("--quick")
        .contains("--rate")
        .contains("--fast-poll-ms")
        .contains("--idle-seconds")
        .contains("--out");
  }

  @Test
  void benchRelayRefusesAZeroRateWithExitTwoBeforeStartingAnything() {
    assertThat(run("bench", "relay", "--rate", "0")).isEqualTo(2);
    assertThat(err.toString()).contains("--rate must be 1 to 5000, not 0");
    assertThat(out.toString()).doesNotContain("Starting");
  }

  @Test
  void theFileMayHoldTheLabsAndTheProductsSettingsButNothingElse(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path file = dir.resolve("x.properties");
    java.nio.file.Files.writeString(
        file, "demo.duration=30s\nbilling.concurrency=8\ndemo.orderz=5\n");
    CommandLine cli = LabMain.commandLine(java.util.Map.of("ORDINAL_CONFIG", file.toString()));
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    assertThat(cli.execute("demo")).isEqualTo(2);
    assertThat(err.toString().lines().toList())
        .containsExactly(
            "ordinal: "
                + file
                + " (ORDINAL_CONFIG) has a key that is not a setting: demo.orderz (did you mean"
                + " demo.orders?); nothing was started.");
    assertThat(out.toString()).isEmpty();
  }
}
