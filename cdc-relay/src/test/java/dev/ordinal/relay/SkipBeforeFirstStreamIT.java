package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.messaging.outbox.OutboxEvent;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A row the operator told the relay to pass over (--skip-event) is passed over by the read that
 * publishes the rows older than a new slot too, not only by the stream: a poison row written before
 * the relay's first start would otherwise stop that read on every try.
 */
@ExtendWith(OrdinalStackExtension.class)
class SkipBeforeFirstStreamIT {

  @Test
  void theFirstStartsReadPassesOverASkippedRow(TestNamespace ns) throws Exception {
    RelayFixture fx = RelayFixture.create(ns);
    try (fx;
        TopicReader reader = new TopicReader(ns.stack().kafkaBootstrap(), fx.topic())) {
      Outbox outbox = new Outbox(Clock.systemUTC());
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        int k = i;
        // one aggregate, so one partition: what is read after the third row came before it
        ids.add(
            fx.owner.transactionResult(
                c ->
                    outbox
                        .append(
                            c.dsl(), new OutboxEvent("order", "o-1", "Seq", "{\"i\":" + k + "}"))
                        .toString()));
      }
      RelayConfig config =
          fx.config("skipping").skipEvents(Set.of(UUID.fromString(ids.get(1)))).build();
      try (OutboxRelay relay = new OutboxRelay(config, new SimpleMeterRegistry()).start()) {
        relay.awaitStreaming(Duration.ofSeconds(60));
        List<ConsumerRecord<String, String>> records =
            reader.readUntilAll(List.of(ids.get(0), ids.get(2)), Duration.ofSeconds(60));
        assertThat(records.stream().map(TopicReader::messageId).toList())
            .containsExactly(ids.get(0), ids.get(2));
      }
    }
  }
}
