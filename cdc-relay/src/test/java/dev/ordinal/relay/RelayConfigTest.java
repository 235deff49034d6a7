package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.DatabaseSettings;
import dev.ordinal.relay.internal.DebeziumProperties;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class RelayConfigTest {
  static final DatabaseSettings DB =
      new DatabaseSettings("jdbc:postgresql://db:5433/app", "relay", "s3cret");

  @Test
  void defaultsAndDebeziumPropertiesFollowTheOutboxConvention() {
    RelayConfig c = RelayConfig.of(DB, "kafka:9092", "orders", "ordinal", Path.of("off.dat"));
    assertThat(c.slotName()).isEqualTo(RelayConfig.DEFAULT_SLOT);
    assertThat(c.offsetFlushInterval()).isEqualTo(RelayConfig.DEFAULT_OFFSET_FLUSH_INTERVAL);

    Properties p = DebeziumProperties.of(c);
    assertThat(p.getProperty("database.hostname")).isEqualTo("db");
    assertThat(p.getProperty("database.port")).isEqualTo("5433");
    assertThat(p.getProperty("database.dbname")).isEqualTo("app");
    assertThat(p.getProperty("table.include.list")).isEqualTo("orders.outbox");
    assertThat(p.getProperty("snapshot.mode")).isEqualTo("no_data");
    assertThat(p.getProperty("transforms.outbox.route.topic.replacement"))
        .isEqualTo("ordinal.${routedByValue}");
    assertThat(p.getProperty("offset.flush.interval.ms")).isEqualTo("1000");
  }

  @Test
  void toStringHidesThePassword() {
    RelayConfig c = RelayConfig.of(DB, "kafka:9092", "orders", "ordinal", Path.of("off.dat"));
    assertThat(c.toString()).doesNotContain("s3cret");
  }

  @Test
  void badNamesAreRefusedWithTheSettingNamed() {
    assertThatThrownBy(
            () ->
                RelayConfig.of(DB, "kafka:9092", "orders", "ordinal", Path.of("o"))
                    .withSlot("Bad-Slot", "pub", false))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("slotName");
    assertThatThrownBy(() -> RelayConfig.of(DB, " ", "orders", "ordinal", Path.of("o")))
        .hasMessageContaining("ORDINAL_KAFKA_BOOTSTRAP");
  }
}
