package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.testkit.ConnectWorker;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The outbox connector on Kafka Connect ({@link ConnectorConfig}) when its slot is lost. */
@ExtendWith(OrdinalStackExtension.class)
class ConnectSlotLossIT {
  /**
   * The slot dropped while the connector was stopped: on resume the task fails (Debezium's check
   * that the stored position is still on the server, on by default on Connect) rather than create a
   * slot and stream from now; nothing written meanwhile or after is published. The runbook of
   * docs/RELAY.md (stop, delete the connector's offsets, resume, republish from the first row
   * missed) then puts every row on the topic.
   */
  @Test
  void aSlotDroppedWhileStoppedFailsTheTaskAndTheRunbookPublishesEveryRow(TestNamespace ns)
      throws Exception {
    try (RelayFixture fx = RelayFixture.create(ns);
        TopicReader reader = new TopicReader(ns.stack().kafkaBootstrap(), fx.topic());
        ConnectWorker worker = ConnectWorker.start(ns, 1, fx.password)) {
      RelayConfig config =
          fx.config("connect").topicDurability(new Topics.Durability(1, 1)).build();
      String connector = ConnectorConfig.name(config);
      String at = "/connectors/" + connector;
      assertThat(worker.create(ConnectorConfig.json(config))).isEqualTo(201);
      worker.awaitRunning(connector);
      fx.awaitSlot(true);
      Set<String> before = OutboxWriters.messageIds(OutboxWriters.run(fx.owner, 1, 100, 0, 0));
      reader.readUntilAll(before, Duration.ofSeconds(60));
      worker.stop(connector);
      fx.awaitSlot(false);
      fx.owner.execute("select pg_drop_replication_slot({0})", fx.slot());
      OutboxWriters.Result missed = OutboxWriters.run(fx.owner, 1, 50, 0, 0);

      assertThat(worker.request("PUT", at + "/resume", null)).isEqualTo(202);
      await("task FAILED")
          .atMost(Duration.ofSeconds(60))
          .until(() -> String.valueOf(worker.task(connector)).startsWith("FAILED"));
      assertThat(worker.task(connector)).contains("but this is no longer available on the server");
      assertThat(fx.slotExists()).as("slot made again").isFalse();
      Set<String> after = OutboxWriters.messageIds(OutboxWriters.run(fx.owner, 1, 10, 0, 0));
      // the connector's output up to now: the 100 before the drop, nothing since
      List<ConsumerRecord<String, String>> published =
          reader.readUntil(r -> r.size() > before.size(), Duration.ofSeconds(5));
      assertThat(published).hasSize(before.size());

      worker.stop(connector);
      assertThat(worker.request("DELETE", at + "/offsets", null))
          .as("DELETE offsets")
          .isEqualTo(200);
      assertThat(worker.request("PUT", at + "/resume", null)).isEqualTo(202);
      worker.awaitRunning(connector);
      fx.awaitSlot(true);
      long republished =
          new RelayRecovery(config)
              .republish(
                  RelayRecovery.Bound.parse("--from", missed.committed().get(0).messageId()),
                  null,
                  line -> {});
      Set<String> later = OutboxWriters.messageIds(OutboxWriters.run(fx.owner, 1, 10, 0, 0));
      Set<String> all = new HashSet<>(before);
      all.addAll(OutboxWriters.messageIds(missed));
      all.addAll(after);
      all.addAll(later);
      Set<String> seen = new HashSet<>();
      reader
          .readUntilAll(all, Duration.ofSeconds(60))
          .forEach(r -> seen.add(TopicReader.messageId(r)));
      System.out.printf(
          "connect slot dropped: task failed on resume, %d written meanwhile and %d after not"
              + " published; runbook: %d republished, then %d streamed; %d of %d on the topic%n",
          missed.committed().size(),
          after.size(),
          republished,
          later.size(),
          seen.size(),
          all.size());
      assertThat(republished).as("republished: the 50 missed and the 10 after").isEqualTo(60);
      assertThat(seen).isEqualTo(all);
    }
  }
}
