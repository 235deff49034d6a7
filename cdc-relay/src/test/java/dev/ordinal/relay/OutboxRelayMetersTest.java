package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.db.DatabaseSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/**
 * A relay made again in the place of one that failed to start (the service retries while a server
 * or the outbox is missing) reports its own state: the closed one's gauges are gone, not left to
 * read a dead instance's -1 forever while the new one's registrations were ignored.
 */
class OutboxRelayMetersTest {

  @Test
  void aRelayMadeAgainAfterAClosedOneReportsItsOwnGauges() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    RelayConfig config =
        RelayConfig.builder(
                new DatabaseSettings("jdbc:postgresql://localhost:1/app", "relay", "secret"),
                "localhost:1",
                "billing",
                "ordinal")
            .instanceId("relay-a")
            .build();

    OutboxRelay first = new OutboxRelay(config, registry);
    assertThat(registry.find("ordinal.relay.leader").gauges()).hasSize(1);
    first.close();
    assertThat(registry.find("ordinal.relay.leader").gauges()).isEmpty();
    assertThat(registry.find("ordinal.relay.slot.lag.alert").gauges()).isEmpty();
    assertThat(registry.find("ordinal.relay.debezium.connected").gauges()).isEmpty();

    try (OutboxRelay again = new OutboxRelay(config, registry)) {
      assertThat(registry.find("ordinal.relay.standbys.unguarded").gauges()).hasSize(1);
      assertThat(registry.get("ordinal.relay.slot.lag.alert").gauge().value()).isZero();
      assertThat(again.slotLagBytes()).isEqualTo(-1);
      // no engine runs: Debezium's streaming MBean is not there
      assertThat(registry.get("ordinal.relay.debezium.connected").gauge().value()).isNaN();
      assertThat(registry.get("ordinal.relay.leader").gauge().getId().getTag("relay_instance"))
          .isEqualTo("relay-a");
    }
  }
}
