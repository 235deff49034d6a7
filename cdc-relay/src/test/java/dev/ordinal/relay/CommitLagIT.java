package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * ordinal.relay.lag runs from the commit of the row's transaction (as PostgreSQL recorded it) to
 * Kafka's acknowledgement, not from when Debezium read the row: an event committed while the relay
 * was down counts the time it waited.
 */
@ExtendWith(OrdinalStackExtension.class)
class CommitLagIT {

  @Test
  void lagRunsFromTheCommitAndTheCommitTimeIsPublished(TestNamespace ns) throws Exception {
    try (RelayFixture fx = RelayFixture.create(ns);
        TopicReader reader = new TopicReader(ns.stack().kafkaBootstrap(), fx.topic())) {
      Outbox outbox = new Outbox(Clock.systemUTC());
      // a first life of the relay creates the slot and stores a position
      try (OutboxRelay first =
          new OutboxRelay(fx.config("lag-1").build(), new SimpleMeterRegistry()).start()) {
        first.awaitStreaming(Duration.ofSeconds(60));
        fx.owner.transaction(c -> outbox.append(c.dsl(), TestEvents.placed("o-1")));
        await().atMost(Duration.ofSeconds(30)).until(() -> first.relayed() == 1);
      }

      // committed while no relay runs
      long before = System.currentTimeMillis();
      fx.owner.transaction(c -> outbox.append(c.dsl(), TestEvents.placed("o-2")));
      long after = System.currentTimeMillis();
      Thread.sleep(2_000); // the relay stays down for 2 s: the scenario, not a wait
      long restartedAt = System.currentTimeMillis();
      try (OutboxRelay second =
          new OutboxRelay(fx.config("lag-2").build(), new SimpleMeterRegistry()).start()) {
        await().atMost(Duration.ofSeconds(60)).until(() -> second.relayed() == 1);
        long ackedBy = System.currentTimeMillis();

        assertThat(second.lag().count()).isEqualTo(1);
        double lagMs = second.lag().totalTime(TimeUnit.MILLISECONDS);
        System.out.printf(
            "commit lag: %.0f ms for an event committed %d ms before the relay started%n",
            lagMs, restartedAt - after);
        // from the commit: at least the time the relay was down, at most until it was read
        assertThat(lagMs).isGreaterThanOrEqualTo((double) (restartedAt - after));
        assertThat(lagMs).isLessThanOrEqualTo((double) (ackedBy - before));
      }

      List<ConsumerRecord<String, String>> records =
          reader.readUntil(r -> r.size() >= 2, Duration.ofSeconds(30));
      assertThat(records).hasSize(2);
      ConsumerRecord<String, String> second =
          records.stream()
              .filter(r -> TestEvents.id("o-2").toString().equals(r.key()))
              .findFirst()
              .orElseThrow();
      Instant committedAt =
          Instant.parse(
              MessageHeaders.get(second.headers(), MessageHeaders.COMMITTED_AT).orElseThrow());
      assertThat(committedAt.toEpochMilli()).isBetween(before, after);
    }
  }
}
