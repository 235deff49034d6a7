package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.lab.devstack.ServerControl;
import dev.ordinal.relay.internal.SlotPosition;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * PostgreSQL restarted under the streaming relay, three times: each time the relay must resume on
 * its own (Debezium confirms to the slot, as its engine stops, positions it could not store while
 * PostgreSQL shut down: the relay must not take its own slot for a lost one), and every event
 * committed must reach Kafka.
 */
@ExtendWith(OrdinalStackExtension.class)
class RestartResumeIT {

  @Test
  void theRelayResumesAfterEachRestartWithoutRefusingItsOwnSlot(TestNamespace ns) throws Exception {
    ServerControl control = ns.stack().control().orElseThrow();
    try (RelayFixture fx = RelayFixture.create(ns);
        TopicReader reader = new TopicReader(ns.stack().kafkaBootstrap(), fx.topic());
        OutboxRelay relay =
            new OutboxRelay(fx.config("restarts").build(), new SimpleMeterRegistry()).start()) {
      relay.awaitStreaming(Duration.ofSeconds(60));
      ResilientWriter writer = new ResilientWriter(fx.owner, 300);
      Thread writing = new Thread(writer, "restart-writer");
      writing.start();
      try {
        for (int i = 1; i <= 3; i++) {
          long target = relay.relayed() + 300;
          Awaitility.await("the relay streams before restart " + i)
              .atMost(Duration.ofSeconds(60))
              .until(() -> relay.relayed() >= target);
          control.restartPostgres(ServerControl.Shutdown.CLEAN);
          long after = relay.relayed() + 300;
          Awaitility.await("the relay streams again after restart " + i)
              .atMost(Duration.ofSeconds(60))
              .until(() -> relay.relayed() >= after);
        }
      } finally {
        writer.stop.set(true);
        writing.join(30_000);
      }
      Set<String> expected = Set.copyOf(writer.committed);
      var records = reader.readUntilAll(expected, Duration.ofSeconds(90));
      Set<String> seen = records.stream().map(TopicReader::messageId).collect(Collectors.toSet());
      System.out.printf(
          "restarts: 3 restarts of PostgreSQL, %d events committed (%d writes failed during"
              + " them), %d records on Kafka%n",
          expected.size(), writer.failed.get(), records.size());
      assertThat(seen).as("every committed event on Kafka").containsAll(expected);
      // the stored position is not behind the slot once the relay has stored again
      SlotPosition.check(fx.config("check").build());
    }
  }
}
