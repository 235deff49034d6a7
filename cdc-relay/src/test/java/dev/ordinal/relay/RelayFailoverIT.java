package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Two relays for one slot: one streams; when it is killed the other takes over by itself. */
@ExtendWith(OrdinalStackExtension.class)
class RelayFailoverIT {
  static final int EVENTS = 3_000;

  @Test
  void onlyOneRelayPublishesAndTheStandbyTakesOverWithinFifteenSeconds(TestNamespace ns)
      throws Exception {
    try (RelaysUnderLoad run = RelaysUnderLoad.start(ns, "a", "b", EVENTS, 600, EVENTS / 3)) {
      assertThat(run.standby.saw("LEADER"))
          .as("the standby never led while the leader lived")
          .isFalse();

      Duration takeover =
          run.takeOver(
              RelayChild::kill, Duration.ofSeconds(15), "standby streams within 15 s of the kill");

      OutboxWriters.Result written = run.writing.get();
      Set<String> expected = OutboxWriters.messageIds(written);
      List<ConsumerRecord<String, String>> records =
          run.reader.readUntilAll(expected, Duration.ofSeconds(60));
      Set<String> seen = new HashSet<>();
      records.forEach(r -> seen.add(TopicReader.messageId(r)));
      System.out.printf(
          "relay failover: took over in %d ms, %d events, %d records, %d duplicates%n",
          takeover.toMillis(), EVENTS, records.size(), records.size() - seen.size());

      OutboxWriters.assertExactlyCommitted(seen, written);
    }
  }
}
