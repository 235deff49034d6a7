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

  /** picocli formats descriptions with String.format: a lone '%' garbles the help with a WARN. */
  @Test
  void everyCommandsHelpRendersWithoutAFormatWarning() throws Exception {
    java.io.ByteArrayOutputStream warnings = new java.io.ByteArrayOutputStream();
    java.io.PrintStream stderr = System.err;
    java.util.List<String> rendered = new java.util.ArrayList<>();
    System.setErr(new java.io.PrintStream(warnings, true, "UTF-8"));
    try {
      java.util.Deque<CommandLine> todo =
          new java.util.ArrayDeque<>(java.util.List.of(Main.commandLine()));
      while (!todo.isEmpty()) {
        CommandLine c = todo.pop();
        rendered.add(c.getCommandSpec().qualifiedName());
        c.getUsageMessage();
        todo.addAll(c.getSubcommands().values());
      }
    } finally {
      System.setErr(stderr);
    }
    assertThat(rendered).contains("ordinal demo", "ordinal bench orders");
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
  void tooFewHttpThreadsAreRefusedWithExitTwoBeforeAnyServerStarts() {
    assertThat(run("order-service", "--http-threads", "4")).isEqualTo(2);
    assertThat(err.toString()).contains("--http-threads must be 8 to 1000, not 4");
    assertThat(out.toString()).doesNotContain("order-service listening");
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
  void durationsTakeSecondsMinutesAndIso8601() {
    DemoCommand.DurationConverter c = new DemoCommand.DurationConverter();
    assertThat(c.convert("30s")).isEqualTo(java.time.Duration.ofSeconds(30));
    assertThat(c.convert("2m")).isEqualTo(java.time.Duration.ofMinutes(2));
    assertThat(c.convert("500ms")).isEqualTo(java.time.Duration.ofMillis(500));
    assertThat(c.convert("PT45S")).isEqualTo(java.time.Duration.ofSeconds(45));
  }

  @Test
  void billingIsACommand() {
    assertThat(run("billing", "--help")).isZero();
    assertThat(out.toString()).contains("Usage: ordinal billing");
  }

  @Test
  void anUnknownCommandIsRefused() {
    assertThat(run("dmeo")).isEqualTo(2);
    assertThat(err.toString()).contains("dmeo");
  }

  @Test
  void benchOnlyTakesAScenarioThatIsAlsoASubcommandsName() {
    CommandLine cli = Main.commandLine();
    CommandLine.ParseResult parsed = cli.parseArgs("bench", "--only", "billing", "--quick");
    BenchCommand bench = (BenchCommand) parsed.subcommand().commandSpec().userObject();
    assertThat(bench.only).containsExactly("billing");
    assertThat(bench.quick).isTrue();
    assertThat(parsed.subcommand().hasSubcommand()).as("billing not run as a subcommand").isFalse();
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
  void relaySkipEventTakesOutboxRowIdsAndRefusesAnythingElse() {
    CommandLine.ParseResult parsed =
        Main.commandLine()
            .parseArgs(
                "relay",
                "--skip-event",
                "ff35e1a3-d55a-484c-8896-8f864d80c6ee,0b2f5d0e-6a55-4b8a-9d43-2c1d0f6a7e11");
    RelayCommand relay = (RelayCommand) parsed.subcommand().commandSpec().userObject();
    assertThat(relay.skipEvents)
        .containsExactly(
            java.util.UUID.fromString("ff35e1a3-d55a-484c-8896-8f864d80c6ee"),
            java.util.UUID.fromString("0b2f5d0e-6a55-4b8a-9d43-2c1d0f6a7e11"));

    assertThat(run("relay", "--skip-event", "row-7")).isEqualTo(2);
    assertThat(err.toString()).contains("--skip-event").contains("row-7");
  }
}
