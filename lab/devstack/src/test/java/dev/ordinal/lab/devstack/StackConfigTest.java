package dev.ordinal.lab.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class StackConfigTest {

  @Test
  void defaultsToTheEmbeddedStack() {
    assertThat(StackConfig.fromEnvironment(Map.of()).mode()).isEqualTo(StackMode.EMBEDDED);
  }

  @Test
  void aUrlAndABootstrapSelectExternalServers() {
    StackConfig c =
        StackConfig.fromEnvironment(
            Map.of(
                "ORDINAL_DB_URL", "jdbc:postgresql://db:5432/app",
                "ORDINAL_DB_PASSWORD", "s3cret",
                "ORDINAL_KAFKA_BOOTSTRAP", "kafka:9092"));
    assertThat(c.mode()).isEqualTo(StackMode.EXTERNAL);
    assertThat(c.toString()).doesNotContain("s3cret");
  }

  @Test
  void halfAnExternalStackNamesTheMissingSetting() {
    assertThatThrownBy(
            () -> StackConfig.fromEnvironment(Map.of("ORDINAL_DB_URL", "jdbc:postgresql://db/x")))
        .isInstanceOf(StackException.class)
        .hasMessageContaining("ORDINAL_KAFKA_BOOTSTRAP");
  }

  @Test
  void anUnknownStackNamesTheChoices() {
    assertThatThrownBy(() -> StackConfig.fromEnvironment(Map.of("ORDINAL_STACK", "docker")))
        .hasMessageContaining("embedded, external or testcontainers");
  }

  @Test
  void aNonPostgresUrlIsRefused() {
    assertThatThrownBy(
            () ->
                StackConfig.fromEnvironment(
                    Map.of(
                        "ORDINAL_DB_URL", "jdbc:mysql://db/x",
                        "ORDINAL_KAFKA_BOOTSTRAP", "kafka:9092")))
        .hasMessageContaining("ORDINAL_DB_URL");
  }
}
