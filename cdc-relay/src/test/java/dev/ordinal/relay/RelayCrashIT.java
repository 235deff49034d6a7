package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The relay's JVM is killed with SIGKILL in the middle of a stream and a new one started: nothing
 * is lost, and the duplicates stay within the stated bound (events relayed in one offset flush
 * interval plus one batch).
 */
@ExtendWith(OrdinalStackExtension.class)
class RelayCrashIT {
  static final int EVENTS = 6_000;
  static final double RATE = 1_500;

  @Test
  void aKilledRelayLosesNothingAndResendsAtMostOneFlushIntervalPlusOneBatch(TestNamespace ns)
      throws Exception {
    try (RelayFixture fx = RelayFixture.create(ns)) {
      RelayConfig config = fx.config("bound").build();
      long bound =
          (long) (RATE * config.offsetFlushInterval().toMillis() / 1000.0) + config.maxBatchSize();
      List<ConsumerRecord<String, String>> records;
      OutboxWriters.Result written;
      try (RelayChild first = RelayChild.start(fx, "first");
          TopicReader reader = new TopicReader(ns.stack().kafkaBootstrap(), fx.topic())) {
        assertThat(first.await("STREAMING", Duration.ofSeconds(90))).isTrue();
        CompletableFuture<OutboxWriters.Result> writing =
            OutboxWriters.inBackground(fx.owner, 4, EVENTS, 9, RATE);
        int atKill = reader.readUntil(r -> r.size() >= EVENTS / 4, Duration.ofSeconds(60)).size();
        first.kill();
        // mid-stream: the relay had events left to send (the writers may or may not be done)
        assertThat(atKill).as("records relayed when killed").isBetween(EVENTS / 4, EVENTS - 1);

        try (RelayChild second = RelayChild.start(fx, "second")) {
          assertThat(second.await("STREAMING", Duration.ofSeconds(90))).isTrue();
          written = writing.get();
          Set<String> expected = OutboxWriters.messageIds(written);
          records = reader.readUntilAll(expected, Duration.ofSeconds(120));
        }
      }
      Set<String> seen = new HashSet<>();
      records.forEach(r -> seen.add(TopicReader.messageId(r)));
      long duplicates = records.size() - seen.size();
      System.out.printf(
          "relay crash: %d events, %d records, %d duplicates (bound %d)%n",
          EVENTS, records.size(), duplicates, bound);

      OutboxWriters.assertExactlyCommitted(seen, written);
      assertThat(duplicates).as("duplicates within the bound").isLessThanOrEqualTo(bound);
    }
  }
}
