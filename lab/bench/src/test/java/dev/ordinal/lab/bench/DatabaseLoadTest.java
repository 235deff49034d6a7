package dev.ordinal.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class DatabaseLoadTest {
  static final long SECOND = 1_000_000_000L;

  @Test
  void fiftyTransactionsAndTwoCpuSecondsOverTenSecondsAreFivePerSecondAndTwentyPercent() {
    DatabaseLoad.Rate r =
        DatabaseLoad.between(
            new DatabaseLoad.Sample(0, 1_000, OptionalLong.of(5_000), 7 * SECOND),
            new DatabaseLoad.Sample(10 * SECOND, 1_050, OptionalLong.of(5_200), 12 * SECOND));
    assertThat(r.transactionsPerSecond()).isCloseTo(5.0, within(1e-9));
    assertThat(r.cpuPercent()).isCloseTo(20.0, within(1e-9));
    assertThat(r.jvmCpuPercent())
        .as("5 CPU seconds of the JVM in 10")
        .isCloseTo(50.0, within(1e-9));
  }

  @Test
  void theBaselineIsSubtractedAndUnknownCpuStaysUnknown() {
    DatabaseLoad.Rate relay = new DatabaseLoad.Rate(6.0, 0.5, 9.0);
    assertThat(relay.minus(new DatabaseLoad.Rate(0.2, 0.1, 2.5)).transactionsPerSecond())
        .isCloseTo(5.8, within(1e-9));
    assertThat(relay.minus(new DatabaseLoad.Rate(0.2, 0.1, 2.5)).cpuPercent())
        .isCloseTo(0.4, within(1e-9));
    assertThat(relay.minus(new DatabaseLoad.Rate(0.2, 0.1, 2.5)).jvmCpuPercent())
        .isCloseTo(6.5, within(1e-9));
    DatabaseLoad.Rate remote =
        DatabaseLoad.between(
            new DatabaseLoad.Sample(0, 0, OptionalLong.empty(), 0),
            new DatabaseLoad.Sample(SECOND, 3, OptionalLong.empty(), 0));
    assertThat(remote.cpuPercent()).isNull();
    assertThat(remote.minus(new DatabaseLoad.Rate(1, 0.1, 0)).cpuPercent()).isNull();
  }
}
