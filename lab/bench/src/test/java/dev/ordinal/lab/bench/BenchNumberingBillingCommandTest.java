package dev.ordinal.lab.bench;

import static dev.ordinal.lab.bench.BenchOptions.assertRefused;
import static dev.ordinal.lab.bench.BenchOptions.parsed;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Options of {@code bench numbering} and {@code bench billing}. */
class BenchNumberingBillingCommandTest {
  @Test
  void numberingQuickIsOneRoundAndOptionsOutOfRangeAreRefused() {
    NumberingBenchCommand numbering =
        parsed(new NumberingBenchCommand(), "--quick", "--clients", "4");
    NumberingBench.Settings s = numbering.settings();
    assertThat(s.rounds()).isEqualTo(1);
    assertThat(s.clients()).isEqualTo(4);
    assertThat(s.measure()).isEqualTo(NumberingBench.Settings.QUICK.measure());

    NumberingBenchCommand bad = parsed(new NumberingBenchCommand(), "--rounds", "0");
    assertRefused(bad::settings, "--rounds must be 1 to 20, not 0");
  }

  @Test
  void billingRunsItsDefaultsAndQuickKeepsTheInFlightLevels() {
    assertThat(parsed(new BillingBenchCommand()).settings())
        .isEqualTo(BillingBench.Settings.DEFAULT);

    BillingBench.Settings s =
        parsed(new BillingBenchCommand(), "--quick", "--messages", "1000").settings();
    assertThat(s.inFlight()).containsExactly(1, 4, 16);
    assertThat(s.latency()).isEqualTo(Duration.ofMillis(200));
    assertThat(s.messages()).isEqualTo(1000);
    assertThat(s.warmupMessages()).isEqualTo(200);
    assertThat(s.rounds()).isEqualTo(1);

    BillingBenchCommand bad = parsed(new BillingBenchCommand(), "--concurrency", "0");
    assertRefused(bad::settings, "--concurrency must be 1 to 256, not 0");
  }
}
