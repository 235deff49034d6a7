package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.db.Tables;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** 10,000 events from 8 writers, rollbacks interleaved: Kafka holds exactly what committed. */
@ExtendWith(OrdinalStackExtension.class)
class CdcRelayDeliveryIT {
  static final Pattern SEQ = Pattern.compile("\"seq\":\\s*(\\d+)");

  @Test
  void tenThousandRowsFromEightWritersArriveExactlyAsCommitted(TestNamespace ns) throws Exception {
    try (RelayFixture fx = RelayFixture.create(ns);
        OutboxRelay relay =
            new OutboxRelay(fx.config("delivery").build(), new SimpleMeterRegistry()).start()) {
      relay.awaitStreaming(Duration.ofSeconds(60));

      OutboxWriters.Result written = OutboxWriters.run(fx.owner, 8, 10_000, 7, 0);
      assertThat(written.committed()).hasSize(10_000);
      assertThat(written.rolledBack()).isNotEmpty();
      assertThat(fx.owner.fetchCount(Tables.OUTBOX)).isEqualTo(10_000);

      Set<String> expected = new HashSet<>();
      written.committed().forEach(c -> expected.add(c.messageId()));
      List<ConsumerRecord<String, String>> records;
      long inTopic;
      try (TopicReader reader = new TopicReader(ns.stack().kafkaBootstrap(), fx.topic())) {
        records = reader.readUntil(r -> r.size() >= 10_000, Duration.ofSeconds(120));
        inTopic = reader.endOffsetsSum();
      }
      Set<String> seen = records.stream().map(TopicReader::messageId).collect(Collectors.toSet());

      assertThat(inTopic).as("records in the topic").isEqualTo(10_000);
      assertThat(records).hasSize(10_000);
      assertThat(seen).as("none missing, none extra").isEqualTo(expected);
      assertThat(seen)
          .as("nothing from a rolled-back transaction")
          .doesNotContainAnyElementsOf(written.rolledBack());
      assertThat(relay.relayed()).isEqualTo(10_000);

      // per aggregate: one partition, and seq 1, 2, 3... in offset order
      Map<String, Integer> lastSeq = new HashMap<>();
      Map<String, Integer> partitionOf = new HashMap<>();
      records.stream()
          .sorted(
              (a, b) ->
                  a.partition() != b.partition()
                      ? Integer.compare(a.partition(), b.partition())
                      : Long.compare(a.offset(), b.offset()))
          .forEach(
              r -> {
                Matcher m = SEQ.matcher(r.value());
                assertThat(m.find()).as(r.value()).isTrue();
                int seq = Integer.parseInt(m.group(1));
                assertThat(partitionOf.merge(r.key(), r.partition(), (x, y) -> x))
                    .isEqualTo(r.partition());
                int previous = lastSeq.getOrDefault(r.key(), 0);
                assertThat(seq)
                    .as("aggregate %s after seq %d", r.key(), previous)
                    .isEqualTo(previous + 1);
                lastSeq.put(r.key(), seq);
              });
      Map<String, Integer> committedPerAggregate = new HashMap<>();
      written
          .committed()
          .forEach(c -> committedPerAggregate.merge(c.aggregateId(), c.seq(), Math::max));
      assertThat(lastSeq).isEqualTo(committedPerAggregate);
      assertThat(relay.lag().count()).isEqualTo(10_000);
    }
  }
}
