package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class MainTest {
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  private int run(String... args) {
    CommandLine cli = Main.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    return cli.execute(args);
  }

  @Test
  void helpListsTheDemoAndExitsZero() {
    assertThat(run("--help")).isZero();
    assertThat(out.toString()).contains("Usage: ordinal").contains("demo");
  }

  @Test
  void demoHelpDescribesItsOptions() {
    assertThat(run("demo", "--help")).isZero();
    assertThat(out.toString()).contains("--orders").contains("--timeout").contains("--keep-data");
    assertThat(out.toString()).contains("--strategies");
  }

  @Test
  void outOfRangeOrdersAreRefusedWithExitTwoAndNothingStarted() {
    assertThat(run("demo", "--orders", "0")).isEqualTo(2);
    assertThat(err.toString()).contains("--orders must be between 1 and 10000, not 0");
    assertThat(out.toString()).doesNotContain("Starting");
  }

  @Test
  void aMalformedTimeoutNamesTheOption() {
    assertThat(run("demo", "--timeout", "soon")).isEqualTo(2);
    assertThat(err.toString()).contains("--timeout");
  }

  @Test
  void anUnknownCommandIsRefused() {
    assertThat(run("dmeo")).isEqualTo(2);
    assertThat(err.toString()).contains("dmeo");
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
}
