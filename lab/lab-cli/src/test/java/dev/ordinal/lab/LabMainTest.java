package dev.ordinal.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.testkit.HelpRendering;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The lab's commands parse and refuse bad input (exit 2) before anything starts. */
class LabMainTest {
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cli = LabMain.commandLine(Map.of());
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    return cli.execute(args);
  }

  /** Runs {@code args} and checks they end with exit 2 and {@code refusal}, nothing started. */
  private void assertRefusedBeforeStarting(String refusal, String... args) {
    assertThat(run(args)).isEqualTo(2);
    assertThat(err.toString()).contains(refusal);
    assertThat(out.toString()).doesNotContain("Starting");
  }

  /** The help {@code args} print, after checking that they exit 0. */
  private String help(String... args) {
    assertThat(run(args)).isZero();
    return out.toString();
  }

  @Test
  void helpListsTheLabsCommands() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString()).contains("demo").contains("up").contains("bench");
  }

  /** picocli formats descriptions with String.format: a lone '%' garbles the help with a WARN. */
  @Test
  void everyCommandsHelpRendersWithoutAFormatWarning() {
    HelpRendering.Rendered help = HelpRendering.everyCommand(LabMain.commandLine(Map.of()));
    assertThat(help.commands()).contains("ordinal demo", "ordinal up", "ordinal bench orders");
    assertThat(help.stderr()).doesNotContain("Could not format");
  }

  @Test
  void demoHelpDescribesItsOptions() {
    assertThat(help("demo", "--help"))
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
    assertRefusedBeforeStarting(
        "--orders must be between 0 and 10000, not -1", "demo", "--orders", "-1");
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
    assertRefusedBeforeStarting(
        "--chaos needs a --duration of at least 10 s, not 5 s",
        "demo",
        "--chaos",
        "--duration",
        "5s");
  }

  @Test
  void benchRelayHelpListsItsOptions() {
    assertThat(help("bench", "relay", "--help"))
        .contains("--quick")
        .contains("--rate")
        .contains("--fast-poll-ms")
        .contains("--idle-seconds")
        .contains("--out");
  }

  @Test
  void benchRelayRefusesAZeroRateWithExitTwoBeforeStartingAnything() {
    assertRefusedBeforeStarting("--rate must be 1 to 5000, not 0", "bench", "relay", "--rate", "0");
  }

  @Test
  void benchConnectRefusesATinyBacklogWithExitTwoBeforeStartingAnything() {
    assertThat(help("bench", "connect", "--help")).contains("--events").contains("--rounds");
    assertRefusedBeforeStarting(
        "--events must be 1000 to 1000000, not 10", "bench", "connect", "--events", "10");
  }

  @Test
  void theFileMayHoldTheLabsAndTheProductsSettingsButNothingElse(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path file = dir.resolve("x.properties");
    java.nio.file.Files.writeString(
        file, "demo.duration=30s\nbilling.concurrency=8\ndemo.orderz=5\n");
    CommandLine cli = LabMain.commandLine(Map.of("ORDINAL_CONFIG", file.toString()));
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
