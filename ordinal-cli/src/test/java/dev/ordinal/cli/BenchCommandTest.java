package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.cli.bench.RelayBench;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class BenchCommandTest {
  private static RelayBench.Settings relaySettings(String... args) {
    BenchCommand.Relay relay = new BenchCommand.Relay();
    new CommandLine(relay).parseArgs(args);
    return relay.settings();
  }

  @Test
  void withoutOptionsTheRelayBenchRunsItsDefaults() {
    assertThat(relaySettings()).isEqualTo(RelayBench.Settings.DEFAULT);
  }

  @Test
  void quickShortensTheWindowsAndExplicitOptionsStillWin() {
    RelayBench.Settings s = relaySettings("--quick", "--rate", "300", "--fast-poll-ms", "10");
    assertThat(s.latencyMeasure()).isEqualTo(RelayBench.Settings.QUICK.latencyMeasure());
    assertThat(s.idle()).isEqualTo(Duration.ofSeconds(4));
    assertThat(s.rounds()).isEqualTo(1);
    assertThat(s.rate()).isEqualTo(300);
    assertThat(s.fastPollInterval()).isEqualTo(Duration.ofMillis(10));
    assertThat(s.defaultPollInterval()).isEqualTo(Duration.ofMillis(500));
  }
}
