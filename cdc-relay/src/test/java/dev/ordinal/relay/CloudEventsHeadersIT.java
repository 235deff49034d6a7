package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.messaging.inbox.InboxConsumer;
import dev.ordinal.messaging.inbox.InboxConsumerConfig;
import dev.ordinal.messaging.kafka.HeaderFormat;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code --headers cloudevents}: the relay, and {@code relay republish}, describe each event with
 * the CloudEvents binary headers only, and an inbox with its default header names applies each
 * event once from them, the republished copies skipped as duplicates.
 */
@ExtendWith(OrdinalStackExtension.class)
class CloudEventsHeadersIT {
  static final int EVENTS = 20;

  @Test
  void eventsRelayedAndRepublishedInCloudEventsFormAreAppliedOnceByADefaultInbox(TestNamespace ns)
      throws Exception {
    Migrations.applyInbox(ns.dataSource(), ns.schema());
    try (RelayFixture f = RelayFixture.create(ns)) {
      RelayConfig config = f.config("ce").outbox(null, HeaderFormat.CLOUDEVENTS).build();
      Set<String> written = new HashSet<>();
      try (OutboxRelay relay = new OutboxRelay(config, new SimpleMeterRegistry()).start()) {
        relay.awaitStreaming(Duration.ofSeconds(60));
        Outbox outbox = new Outbox(Clock.systemUTC());
        for (int i = 0; i < EVENTS; i++) {
          var event =
              i % 2 == 0 ? TestEvents.placed("o-" + i / 2) : TestEvents.cancelled("o-" + i / 2);
          written.add(f.owner.transactionResult(c -> outbox.append(c.dsl(), event)).toString());
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> relay.relayed() == EVENTS);
      }
      // every row again, as an operator's republish would
      assertThat(new RelayRecovery(config).republish(null, null, line -> {})).isEqualTo(EVENTS);

      List<ConsumerRecord<String, String>> records;
      try (TopicReader reader = new TopicReader(ns.stack().kafkaBootstrap(), f.topic())) {
        records = reader.readUntil(r -> r.size() >= 2 * EVENTS, Duration.ofSeconds(30));
      }
      assertThat(records).hasSize(2 * EVENTS);
      assertThat(records).allMatch(has(HeaderFormat.CE_SPECVERSION));
      assertThat(records).allMatch(has(HeaderFormat.CE_SOURCE));
      assertThat(records).noneMatch(has(MessageHeaders.MESSAGE_ID));
      assertThat(records).noneMatch(has(MessageHeaders.EVENT_TYPE));
      assertThat(
              records.stream()
                  .map(r -> MessageHeaders.get(r.headers(), HeaderFormat.CE_ID).orElseThrow())
                  .distinct())
          .containsExactlyInAnyOrderElementsOf(written);

      InboxConsumerConfig inbox =
          InboxConsumerConfig.builder(
                  "ce-inbox", ns.group("ce"), List.of(f.topic()), ns.stack().kafkaBootstrap())
              .backoff(Duration.ofMillis(50), Duration.ofMillis(200))
              .build();
      try (InboxConsumer consumer =
          new InboxConsumer(
                  inbox,
                  DSL.using(ns.dataSource(), SQLDialect.POSTGRES),
                  (tx, m) -> {},
                  new SimpleMeterRegistry(),
                  Clock.systemUTC())
              .start()) {
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> consumer.applied() + consumer.duplicates() == 2 * EVENTS);
        assertThat(consumer.applied()).isEqualTo(EVENTS);
        assertThat(consumer.duplicates()).isEqualTo(EVENTS);
        assertThat(consumer.deadLettered()).isZero();
      }
    }
  }

  private static Predicate<ConsumerRecord<String, String>> has(String header) {
    return r -> r.headers().lastHeader(header) != null;
  }
}
