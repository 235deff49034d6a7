package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A slot made before the relay's first start ('relay reset-position', as the slot-loss runbook
 * does, or by an operator) holds every event committed after it: the relay, finding no stored
 * position, must stream from the slot's position, not from where the WAL ends when it starts.
 */
@ExtendWith(OrdinalStackExtension.class)
class FreshSlotIT {

  @Test
  void eventsCommittedBetweenResetPositionAndTheFirstStartAreRelayed(TestNamespace ns)
      throws Exception {
    try (RelayFixture fx = RelayFixture.create(ns);
        TopicReader reader = new TopicReader(ns.stack().kafkaBootstrap(), fx.topic())) {
      RelayConfig config = fx.config("fresh").build();
      RelayRecovery.Reset reset = new RelayRecovery(config).resetPosition(true);
      assertThat(reset.slotCreated()).isTrue();

      Outbox outbox = new Outbox(Clock.systemUTC());
      Set<String> written = new HashSet<>();
      for (int i = 0; i < 25; i++) {
        int n = i;
        fx.owner.transaction(
            c -> written.add(outbox.append(c.dsl(), TestEvents.placed("o-" + n)).toString()));
      }

      try (OutboxRelay relay = new OutboxRelay(config, new SimpleMeterRegistry()).start()) {
        var records = reader.readUntilAll(written, Duration.ofSeconds(60));
        assertThat(records.stream().map(TopicReader::messageId).collect(Collectors.toSet()))
            .as("the 25 events committed before the relay's first start")
            .isEqualTo(written);
      }
    }
  }
}
