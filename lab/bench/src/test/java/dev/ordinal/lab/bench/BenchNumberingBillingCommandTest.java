package dev.ordinal.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Options of {@code bench numbering} and {@code bench billing}. */
class BenchNumberingBillingCommandTest {
  @Test
  void numberingQuickIsOneRoundAndOptionsOutOfRangeAreRefused() {
    BenchCommand.Numbering numbering = new BenchCommand.Numbering();
    new CommandLine(numbering).parseArgs("--quick", "--clients", "4");
    NumberingBench.Settings s = numbering.settings();
    assertThat(s.rounds()).isEqualTo(1);
    assertThat(s.clients()).isEqualTo(4);
    assertThat(s.measure()).isEqualTo(NumberingBench.Settings.QUICK.measure());

    BenchCommand.Numbering bad = new BenchCommand.Numbering();
    new CommandLine(bad).parseArgs("--rounds", "0");
    assertThatThrownBy(bad::settings)
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessage("--rounds must be 1 to 20, not 0");
  }

  @Test
  void billingRunsItsDefaultsAndQuickKeepsTheInFlightLevels() {
    BenchCommand.Billing billing = new BenchCommand.Billing();
    new CommandLine(billing).parseArgs();
    assertThat(billing.settings()).isEqualTo(BillingBench.Settings.DEFAULT);

    BenchCommand.Billing quick = new BenchCommand.Billing();
    new CommandLine(quick).parseArgs("--quick", "--messages", "1000");
    BillingBench.Settings s = quick.settings();
    assertThat(s.inFlight()).containsExactly(1, 4, 16);
    assertThat(s.latency()).isEqualTo(Duration.ofMillis(200));
    assertThat(s.messages()).isEqualTo(1000);
    assertThat(s.warmupMessages()).isEqualTo(200);
    assertThat(s.rounds()).isEqualTo(1);

    BenchCommand.Billing bad = new BenchCommand.Billing();
    new CommandLine(bad).parseArgs("--concurrency", "0");
    assertThatThrownBy(bad::settings)
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessage("--concurrency must be 1 to 256, not 0");
  }
}
