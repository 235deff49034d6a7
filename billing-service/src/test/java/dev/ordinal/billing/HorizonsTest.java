package dev.ordinal.billing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.OffsetDateTime;
import org.junit.jupiter.api.Test;

class HorizonsTest {
  private static final OffsetDateTime SENT = OffsetDateTime.parse("2026-03-02T12:00:00Z");
  private final Horizons horizons = new Horizons(Duration.ofSeconds(10), Duration.ofSeconds(100));

  @Test
  void horizonsDoubleFromTheWindowUpToTheCap() {
    assertThat(horizons.next(SENT, SENT)).isEqualTo(SENT.plusSeconds(10));
    assertThat(horizons.next(SENT, SENT.plusSeconds(10))).isEqualTo(SENT.plusSeconds(20));
    assertThat(horizons.next(SENT, SENT.plusSeconds(20))).isEqualTo(SENT.plusSeconds(40));
    assertThat(horizons.next(SENT, SENT.plusSeconds(40))).isEqualTo(SENT.plusSeconds(80));
    assertThat(horizons.next(SENT, SENT.plusSeconds(80))).isEqualTo(SENT.plusSeconds(100));
    assertThat(horizons.next(SENT, SENT.plusSeconds(100))).as("the last one").isNull();
  }

  @Test
  void aLookUpThatCameLateSkipsTheHorizonsItPassed() {
    assertThat(horizons.next(SENT, SENT.plusSeconds(35))).isEqualTo(SENT.plusSeconds(40));
    assertThat(horizons.next(SENT, SENT.plusSeconds(99))).isEqualTo(SENT.plusSeconds(100));
    assertThat(horizons.next(SENT, SENT.plusSeconds(3_600))).isNull();
  }

  @Test
  void aCapBelowTheWindowIsRefused() {
    assertThatThrownBy(() -> new Horizons(Duration.ofSeconds(10), Duration.ofSeconds(5)))
        .hasMessage("the last horizon (PT5S) must be at least the first (PT10S)");
    assertThatThrownBy(() -> new Horizons(Duration.ZERO, Duration.ofSeconds(5)))
        .hasMessage("the first horizon must be positive, not PT0S");
  }
}
