package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.testkit.HelpRendering;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class MainTest extends CommandTest {
  private int run(String... args) {
    return printingHere(Main.commandLine()).execute(args);
  }

  /** What {@code args} print, after checking that they exit 0. */
  private String help(String... args) {
    assertThat(run(args)).isZero();
    return out.toString();
  }

  @Test
  void helpListsTheProductsCommandsOnlyAndExitsZero() {
    assertThat(help("--help"))
        .contains("Usage: ordinal")
        .contains("billing")
        .contains("relay")
        .contains("replay")
        .doesNotContain("  demo ")
        .doesNotContain("  bench ");
  }

  /** picocli formats descriptions with String.format: a lone '%' garbles the help with a WARN. */
  @Test
  void everyCommandsHelpRendersWithoutAFormatWarning() {
    HelpRendering.Rendered help = HelpRendering.everyCommand(Main.commandLine());
    assertThat(help.commands())
        .contains("ordinal billing", "ordinal relay republish", "ordinal dlq list");
    assertThat(help.stderr()).doesNotContain("Could not format");
  }

  @Test
  void tooFewHttpThreadsAreRefusedWithExitTwoBeforeAnyServerStarts() {
    assertThat(run("order-service", "--http-threads", "4")).isEqualTo(2);
    assertThat(err.toString()).contains("--http-threads must be 8 to 1000, not 4");
    assertThat(out.toString()).doesNotContain("order-service listening");
  }

  @Test
  void billingIsACommand() {
    assertThat(help("billing", "--help")).contains("Usage: ordinal billing");
  }

  @Test
  void anUnknownCommandIsRefused() {
    assertThat(run("dmeo")).isEqualTo(2);
    assertThat(err.toString()).contains("dmeo");
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
    assertThat(relay.values().get(dev.ordinal.relay.RelaySettings.SKIP_EVENTS))
        .containsExactly(
            java.util.UUID.fromString("ff35e1a3-d55a-484c-8896-8f864d80c6ee"),
            java.util.UUID.fromString("0b2f5d0e-6a55-4b8a-9d43-2c1d0f6a7e11"));

    assertThat(run("relay", "--skip-event", "row-7")).isEqualTo(2);
    assertThat(err.toString()).contains("--skip-event").contains("row-7");
  }
}
