package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RelayModeTest {
  static final DatabaseSettings DB =
      new DatabaseSettings("jdbc:postgresql://localhost/ordinal", "u", "p");

  static final Duration INTERVAL = PollingRelayConfig.DEFAULT_POLL_INTERVAL;
  static final Duration LEASE = PollingRelayConfig.DEFAULT_LEASE;

  static RelaySettings.Builder builder() {
    return RelaySettings.builder(DB, "localhost:9092");
  }

  @Test
  void pollingModeTakesItsOptionsIntoEachSchemasPollingRelayConfig() {
    RelaySettings s =
        builder()
            .schemas(List.of("orders", "billing"))
            .instanceId("r1")
            .polling(RelayMode.POLLING, Duration.ofMillis(100), 50, Duration.ofSeconds(40))
            .build();
    PollingRelayConfig billing = s.pollingConfig("billing");
    assertThat(billing.instanceId()).isEqualTo("r1-billing");
    assertThat(billing.pollInterval()).isEqualTo(Duration.ofMillis(100));
    assertThat(billing.batchSize()).isEqualTo(50);
    assertThat(billing.lease()).isEqualTo(Duration.ofSeconds(40));
    assertThat(billing.db()).isEqualTo(DB.withSchema("billing"));
  }

  @Test
  void aCdcOptionWithPollingModeIsRefusedInOneSentence() {
    assertThatThrownBy(
            () ->
                builder()
                    .slot("my_slot", null)
                    .polling(RelayMode.POLLING, INTERVAL, 10, LEASE)
                    .build())
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "--slot is an option of the cdc relay, not of --mode polling: remove it, or choose"
                + " the other --mode.");
    assertThatThrownBy(
            () ->
                builder()
                    .leaderLease(Duration.ofSeconds(20))
                    .polling(RelayMode.POLLING, INTERVAL, 10, LEASE)
                    .build())
        .hasMessageStartingWith("--leader-lease is an option of the cdc relay");
  }

  @Test
  void aPollingOptionWithCdcModeIsRefusedInOneSentence() {
    assertThatThrownBy(() -> builder().polling(RelayMode.CDC, INTERVAL, 10, LEASE).build())
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "--batch-size is an option of the polling relay, not of --mode cdc: remove it, or"
                + " choose the other --mode.");
  }

  @Test
  void aLeaseNotLongerThanTheSendTimeoutIsRefused() {
    assertThatThrownBy(
            () ->
                builder()
                    .polling(
                        RelayMode.POLLING,
                        PollingRelayConfig.DEFAULT_POLL_INTERVAL,
                        10,
                        Duration.ofSeconds(20))
                    .build())
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("lease (20000 ms) must be longer");
  }
}
