package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.relay.internal.SlotPosition;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two relay JVMs for one slot; the leader is frozen with SIGSTOP under load (its sockets stay open,
 * so PostgreSQL and Kafka see nothing wrong). The standby must stream within 30 s (the lease is 10
 * s), and the old leader, woken with SIGCONT, must decide to send nothing (records are stamped just
 * before the lease check) and leave the stored position where the new leader put it.
 */
@ExtendWith(OrdinalStackExtension.class)
class FrozenLeaderIT {
  static final int EVENTS = 4_000;

  @Test
  void aFrozenLeaderLosesTheLeadWithinItsLeaseAndPublishesNothingWhenItWakes(TestNamespace ns)
      throws Exception {
    try (RelaysUnderLoad run =
        RelaysUnderLoad.start(ns, "frozen-a", "frozen-b", EVENTS, 200, EVENTS / 10)) {
      RelayChild leader = run.leader;
      RelayChild standby = run.standby;
      TopicReader reader = run.reader;

      Duration takeover =
          run.takeOver(
              RelayChild::freeze,
              Duration.ofSeconds(30),
              "the standby streams within 30 s of the leader's freeze");
      String oldLeader = leader.instanceId;
      String newLeader = standby.instanceId;
      reader.readUntil(
          r -> r.stream().anyMatch(x -> newLeader.equals(relayedBy(x))), Duration.ofSeconds(30));

      long wokeAt = System.currentTimeMillis(); // wall clock: what record timestamps use
      leader.thaw();
      assertThat(leader.await("STANDBY", Duration.ofSeconds(30)))
          .as("the woken leader steps down")
          .isTrue();

      OutboxWriters.Result written = run.writing.get();
      Set<String> expected = OutboxWriters.messageIds(written);
      List<ConsumerRecord<String, String>> records =
          reader.readUntilAll(expected, Duration.ofSeconds(90));
      Set<String> seen = records.stream().map(TopicReader::messageId).collect(Collectors.toSet());
      List<ConsumerRecord<String, String>> sentAfterWaking =
          records.stream()
              .filter(r -> oldLeader.equals(relayedBy(r)) && r.timestamp() >= wokeAt)
              .toList();
      long byOld = records.stream().filter(r -> oldLeader.equals(relayedBy(r))).count();
      long byNew = records.stream().filter(r -> newLeader.equals(relayedBy(r))).count();
      System.out.printf(
          "frozen leader: standby streamed %d ms after the freeze; %d events, %d records (%d by"
              + " the frozen leader, %d by the new one, %d duplicates), %d sent by the frozen"
              + " leader after it woke (by their timestamps: decided then)%n",
          takeover.toMillis(),
          EVENTS,
          records.size(),
          byOld,
          byNew,
          records.size() - seen.size(),
          sentAfterWaking.size());

      // a record's timestamp is taken just before the forwarder's lease check: none may be decided
      // after the wake (what was decided before the freeze may land after it, as copies)
      assertThat(sentAfterWaking)
          .as("records the old leader decided to send after it woke")
          .isEmpty();
      OutboxWriters.assertExactlyCommitted(seen, written);
      assertThat(byOld + byNew).isEqualTo(records.size());
      // the woken leader did not put the stored position back behind the slot: a relay starting
      // now would stream, not refuse
      SlotPosition.check(run.fx.config("check").build());
      assertThat(standby.saw("STANDBY")).as("the new leader kept the lead").isFalse();
    }
  }

  private static String relayedBy(ConsumerRecord<String, String> r) {
    return MessageHeaders.get(r.headers(), MessageHeaders.RELAYED_BY).orElse(null);
  }
}
