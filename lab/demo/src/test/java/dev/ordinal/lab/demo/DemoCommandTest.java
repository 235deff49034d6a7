package dev.ordinal.lab.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.cli.DurationConverter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

class DemoCommandTest {
  @Test
  void durationsTakeSecondsMinutesAndIso8601() {
    DurationConverter c = new DurationConverter();
    assertThat(c.convert("30s")).isEqualTo(java.time.Duration.ofSeconds(30));
    assertThat(c.convert("2m")).isEqualTo(java.time.Duration.ofMinutes(2));
    assertThat(c.convert("500ms")).isEqualTo(java.time.Duration.ofMillis(500));
    assertThat(c.convert("PT45S")).isEqualTo(java.time.Duration.ofSeconds(45));
  }

  @Test
  void theLabsDurationOptionsUseTheProductsConverter() {
    List<String> others = new ArrayList<>();
    for (Object command : List.of(new DemoCommand(), new UpCommand())) {
      for (OptionSpec o : new CommandLine(command).getCommandSpec().options()) {
        if (o.type() == Duration.class
            && Arrays.stream(o.converters()).noneMatch(DurationConverter.class::isInstance)) {
          others.add(o.longestName());
        }
      }
    }
    assertThat(others).isEmpty();
  }
}
