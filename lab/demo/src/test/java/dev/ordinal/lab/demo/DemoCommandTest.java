package dev.ordinal.lab.demo;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DemoCommandTest {
  @Test
  void durationsTakeSecondsMinutesAndIso8601() {
    DemoCommand.DurationConverter c = new DemoCommand.DurationConverter();
    assertThat(c.convert("30s")).isEqualTo(java.time.Duration.ofSeconds(30));
    assertThat(c.convert("2m")).isEqualTo(java.time.Duration.ofMinutes(2));
    assertThat(c.convert("500ms")).isEqualTo(java.time.Duration.ofMillis(500));
    assertThat(c.convert("PT45S")).isEqualTo(java.time.Duration.ofSeconds(45));
  }
}
