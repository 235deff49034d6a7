package dev.ordinal.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class BackoffTest {
  @Test
  void withoutRandomizationTheWaitsDoubleExactlyUpToTheMax() {
    Backoff b = new Backoff(Duration.ofMillis(100), 2.0, 0.0, Duration.ofMillis(1_000));
    List<Long> waits = IntStream.rangeClosed(1, 7).mapToObj(n -> b.delay(n).toMillis()).toList();
    assertThat(waits).containsExactly(100L, 200L, 400L, 800L, 1_000L, 1_000L, 1_000L);
  }

  @Test
  void theMultiplierSetsTheGrowth() {
    Backoff b = new Backoff(Duration.ofMillis(10), 3.0, 0.0, Duration.ofSeconds(1));
    assertThat(b.delay(1)).isEqualTo(Duration.ofMillis(10));
    assertThat(b.delay(2)).isEqualTo(Duration.ofMillis(30));
    assertThat(b.delay(3)).isEqualTo(Duration.ofMillis(90));
    assertThat(b.delay(5)).isEqualTo(Duration.ofMillis(810));
    assertThat(b.delay(6)).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void aLongRunOfFailuresStaysAtTheMax() {
    Backoff b = new Backoff(Duration.ofMillis(50), 2.0, 0.0, Duration.ofSeconds(10));
    assertThat(b.delay(64)).isEqualTo(Duration.ofSeconds(10));
    assertThat(b.delay(Integer.MAX_VALUE)).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void jitterKeepsEachWaitWithinItsBoundsAndBelowTheMax() {
    Backoff b = Backoff.exponential(Duration.ofMillis(100), Duration.ofMillis(1_000));
    for (int i = 0; i < 2_000; i++) {
      assertThat(b.delay(1).toMillis()).isBetween(50L, 150L);
      assertThat(b.delay(2).toMillis()).isBetween(100L, 300L);
      assertThat(b.delay(3).toMillis()).isBetween(200L, 600L);
      assertThat(b.delay(5).toMillis()).isBetween(800L, 1_000L);
      assertThat(b.delay(30).toMillis()).isEqualTo(1_000L);
    }
  }

  @Test
  void jitterSpreadsTheWaits() {
    Backoff b = Backoff.exponential(Duration.ofMillis(1_000), Duration.ofMinutes(1));
    long distinct =
        IntStream.range(0, 200).mapToLong(i -> b.delay(1).toMillis()).distinct().count();
    // 200 draws among 1,001 possible waits: all the same would mean no jitter at all
    assertThat(distinct).isGreaterThan(1);
  }

  @Test
  void theDefaultsDoubleWithFiftyPercentJitter() {
    Backoff b = Backoff.exponential(Duration.ofMillis(200), Duration.ofSeconds(10));
    assertThat(b.initial()).isEqualTo(Duration.ofMillis(200));
    assertThat(b.multiplier()).isEqualTo(2.0);
    assertThat(b.randomization()).isEqualTo(0.5);
    assertThat(b.max()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void outOfBoundsSettingsAndAttemptsAreRefused() {
    Duration s = Duration.ofSeconds(1);
    assertThatThrownBy(() -> new Backoff(Duration.ZERO, 2.0, 0.5, s))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("initial");
    assertThatThrownBy(() -> new Backoff(s, 2.0, 0.5, Duration.ofMillis(999)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("max");
    assertThatThrownBy(() -> new Backoff(s, 0.5, 0.5, s))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("multiplier");
    assertThatThrownBy(() -> new Backoff(s, 2.0, 1.0, s))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("randomization");
    assertThatThrownBy(() -> new Backoff(s, 2.0, -0.1, s))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("randomization");
    assertThatThrownBy(() -> Backoff.exponential(s, s).delay(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("attempt");
  }
}
