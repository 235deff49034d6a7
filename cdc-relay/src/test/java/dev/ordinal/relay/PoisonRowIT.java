package dev.ordinal.relay;

import static dev.ordinal.messaging.db.Tables.OUTBOX;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ordinal.contracts.AggregateType;
import dev.ordinal.contracts.EventType;
import dev.ordinal.messaging.outbox.EventTooLargeException;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.messaging.outbox.OutboxEvent;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jooq.JSONB;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A row Kafka refuses for good: refused by the library when written through it; when written behind
 * its back, the relay stops before it, naming it, publishes nothing after it, and goes on only when
 * told to skip it.
 */
@ExtendWith(OrdinalStackExtension.class)
class PoisonRowIT {
  private static final String TWO_MB = "{\"blob\": \"" + "x".repeat(2_000_000) + "\"}";

  @Test
  void aRowTooLargeToPublishStopsTheRelayBeforeItUntilItIsSkipped(TestNamespace ns)
      throws Exception {
    try (RelayFixture f = RelayFixture.create(ns)) {
      Outbox outbox = new Outbox(Clock.systemUTC());

      // through the library: refused, nothing written
      assertThatThrownBy(
              () ->
                  f.owner.transaction(
                      c ->
                          outbox.append(
                              c.dsl(),
                              new OutboxEvent(
                                  AggregateType.ORDER.wireName(),
                                  TestEvents.id("agg-1").toString(),
                                  EventType.ORDER_PLACED.wireName(),
                                  TWO_MB))))
          .isInstanceOf(EventTooLargeException.class);
      assertThat(f.owner.fetchCount(OUTBOX)).isZero();

      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      UUID first;
      UUID poison = UUID.randomUUID();
      UUID later;
      UUID other;
      try (OutboxRelay relay = new OutboxRelay(f.config("poison-1").build(), registry).start()) {
        relay.awaitStreaming(Duration.ofSeconds(60));
        first = append(f, outbox, TestEvents.placed("agg-1"));
        // behind the library's back: a 2 MB row, then later events of its aggregate and another
        f.owner.transaction(
            c ->
                c.dsl()
                    .insertInto(OUTBOX)
                    .set(OUTBOX.ID, poison)
                    .set(OUTBOX.AGGREGATE_TYPE, AggregateType.ORDER.wireName())
                    .set(OUTBOX.AGGREGATE_ID, TestEvents.id("agg-1").toString())
                    .set(OUTBOX.EVENT_TYPE, "OrderAmended")
                    .set(OUTBOX.PAYLOAD, JSONB.valueOf(TWO_MB))
                    .set(OUTBOX.OCCURRED_AT, OffsetDateTime.now())
                    .execute());
        later = append(f, outbox, TestEvents.cancelled("agg-1"));
        other = append(f, outbox, TestEvents.placed("agg-2"));

        // it stops on the row, is run again by its loop, and stops on it again
        await()
            .atMost(Duration.ofSeconds(90))
            .until(() -> registry.counter("ordinal.relay.unpublishable", tags(f)).count() >= 2);
        assertThat(relay.lastFailure())
            .startsWith(
                "Outbox row "
                    + poison
                    + " (OrderAmended of order "
                    + TestEvents.id("agg-1")
                    + ") cannot be published to "
                    + f.topic()
                    + ": ")
            .contains(
                "which is larger than 1048576, which is the value of the max.request.size"
                    + " configuration; the relay stopped")
            .endsWith(
                "; the relay stopped before it and publishes nothing after it in "
                    + ns.schema()
                    + ".outbox until the limit is raised (the producer's max.request.size and"
                    + " the topic's max.message.bytes) or the relay is restarted with"
                    + " --skip-event "
                    + poison
                    + " to leave it out.");

        try (TopicReader reader = new TopicReader(ns.stack().kafkaBootstrap(), f.topic())) {
          List<ConsumerRecord<String, String>> seen =
              reader.readUntil(r -> !r.isEmpty(), Duration.ofSeconds(30));
          long end = reader.endOffsetsSum();
          seen = reader.readUntil(r -> r.size() >= end, Duration.ofSeconds(30));
          assertThat(seen).hasSize((int) end);
          // only the event before the poison row (re-sent by each run, never anything after it)
          assertThat(seen).map(TopicReader::messageId).containsOnly(first.toString());
        }
      }

      // the operator skips the row: everything after it is published, in order, once
      try (OutboxRelay relay =
          new OutboxRelay(f.config("poison-2").skipEvents(Set.of(poison)).build(), registry)
              .start()) {
        relay.awaitStreaming(Duration.ofSeconds(60));
        try (TopicReader reader = new TopicReader(ns.stack().kafkaBootstrap(), f.topic())) {
          List<ConsumerRecord<String, String>> seen =
              reader.readUntil(r -> TopicReader.distinctMessageIds(r) >= 3, Duration.ofSeconds(60));
          assertThat(seen)
              .map(TopicReader::messageId)
              .containsOnly(first.toString(), later.toString(), other.toString())
              .doesNotContain(poison.toString());
          List<String> agg1 =
              seen.stream()
                  .filter(r -> TestEvents.id("agg-1").toString().equals(r.key()))
                  .map(TopicReader::messageId)
                  .distinct()
                  .toList();
          assertThat(agg1).containsExactly(first.toString(), later.toString());
        }
        assertThat(
                registry
                    .counter(
                        "ordinal.relay.skipped", "slot", f.slot(), "relay_instance", "poison-2")
                    .count())
            .isEqualTo(1.0);
        assertThat(relay.lastFailure()).isNull();
      }
      // the skipped row stays in the table for the operator to look at
      assertThat(f.owner.fetchCount(OUTBOX, OUTBOX.ID.eq(poison))).isEqualTo(1);
    }
  }

  private static String[] tags(RelayFixture f) {
    return new String[] {"slot", f.slot(), "relay_instance", "poison-1"};
  }

  private static UUID append(RelayFixture f, Outbox outbox, OutboxEvent event) {
    return f.owner.transactionResult(c -> outbox.append(c.dsl(), event));
  }
}
