package dev.ordinal.ops.lag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.ops.GroupMember;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.SettableClock;
import dev.ordinal.testkit.TestKafka;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.tools.consumer.group.DescribeGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link LagReader} on the real broker: its offsets and lag in records equal what Kafka's own
 * {@code kafka-consumer-groups --describe} reports for the same group at the same moment; its time
 * lag is the age of the next record the group will read; and the statuses of a stalled, a stopped,
 * a catching-up and an idle group, with a settable clock instead of waiting.
 */
@ExtendWith(OrdinalStackExtension.class)
class ConsumerLagIT {
  /**
   * The timestamp of record {@code i} of partition {@code p}: a minute apart, 20 min per partition.
   */
  static Instant timestamp(Instant base, int p, int i) {
    return base.plus(Duration.ofMinutes(20L * p + i));
  }

  @Test
  void offsetsAndLagEqualConsumerGroupCommandsAtEveryPointAndTimeLagIsTheNextRecordsAge(
      TestNamespace ns) throws Exception {
    String bs = ns.stack().kafkaBootstrap();
    String topic = ns.topic("cross");
    Topics.ensure(bs, topic, 3);
    Instant base = Instant.now().minus(Duration.ofHours(2)).truncatedTo(ChronoUnit.MILLIS);
    int[] produced = {10, 6, 3};
    for (int p = 0; p < 3; p++) {
      produce(bs, topic, p, base, 0, produced[p]);
    }
    String group = ns.group("cross");
    List<String> compared = new ArrayList<>();
    try (LagReader reader = new LagReader(LagReaderConfig.of(bs), Clock.systemUTC());
        KafkaConsumer<String, String> member = member(bs, group, topic)) {
      // 1. a member holds all three partitions and has committed nothing
      compareWithKafka(reader, bs, group, "nothing committed", compared);
      LagSnapshot none = reader.read(LagQuery.group(group));
      assertThat(none.group(group).orElseThrow().partitions())
          .allSatisfy(
              p -> {
                assertThat(p.committedOffset()).isNull();
                assertThat(p.lag()).isNull();
                assertThat(p.memberId()).isNotNull();
              });

      // 2. partly consumed: 4 of 10, 0 of 6, 3 of 3
      member.commitSync(offsets(topic, 4, 0, 3));
      compareWithKafka(reader, bs, group, "partly consumed", compared);
      assertTimeLags(reader, group, topic, base, new long[] {4, 0, 3}, new long[] {6, 6, 0});

      // 3. more produced on partition 1, more consumed on 0 and 1
      produce(bs, topic, 1, base, 6, 5);
      member.commitSync(offsets(topic, 9, 2, 3));
      compareWithKafka(reader, bs, group, "more produced and consumed", compared);
      assertTimeLags(reader, group, topic, base, new long[] {9, 2, 3}, new long[] {1, 9, 0});

      // 4. fully consumed: every lag 0, every time lag 0
      member.commitSync(offsets(topic, 10, 11, 3));
      compareWithKafka(reader, bs, group, "fully consumed", compared);
      assertThat(reader.read(LagQuery.group(group)).group(group).orElseThrow().partitions())
          .allSatisfy(
              p -> {
                assertThat(p.lag()).isZero();
                assertThat(p.timeLag()).isEqualTo(Duration.ZERO);
              });
    }
    // 5. the member has left: the group is Empty, the rows have no consumer
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> "Empty".equals(DescribeGroup.describe(bs, group).state()));
    try (LagReader reader = new LagReader(LagReaderConfig.of(bs), Clock.systemUTC())) {
      produce(bs, topic, 2, base, 3, 2);
      compareWithKafka(reader, bs, group, "member gone, new records", compared);
    }
    assertThat(compared)
        .containsExactly(
            "nothing committed: Stable, 3 rows",
            "partly consumed: Stable, 3 rows",
            "more produced and consumed: Stable, 3 rows",
            "fully consumed: Stable, 3 rows",
            "member gone, new records: Empty, 3 rows");
  }

  /** Reads both, with nothing producing or committing in between, and asserts equal rows. */
  private static void compareWithKafka(
      LagReader reader, String bs, String group, String point, List<String> compared)
      throws Exception {
    DescribeGroup.Result kafka = DescribeGroup.describe(bs, group);
    GroupLag ours = reader.read(LagQuery.group(group)).group(group).orElseThrow();
    List<DescribeGroup.Row> mine =
        ours.partitions().stream()
            .map(
                p ->
                    new DescribeGroup.Row(
                        p.topic(),
                        p.partition(),
                        p.committedOffset(),
                        p.logEndOffset(),
                        p.lag(),
                        p.memberId(),
                        p.host(),
                        p.clientId()))
            .toList();
    assertThat(mine).as(point).isEqualTo(kafka.rows());
    assertThat(ours.state()).as(point).isEqualTo(kafka.state());
    compared.add(point + ": " + ours.state() + ", " + mine.size() + " rows");
  }

  /** Lag per partition as expected; the time lag within 1 s of the next record's true age. */
  private static void assertTimeLags(
      LagReader reader,
      String group,
      String topic,
      Instant base,
      long[] committed,
      long[] expectedLag) {
    LagSnapshot s = reader.read(LagQuery.group(group));
    Instant readAt = Instant.now();
    for (PartitionLag p : s.group(group).orElseThrow().partitions()) {
      int i = p.partition();
      assertThat(p.topic()).isEqualTo(topic);
      assertThat(p.lag()).as("lag of %d", i).isEqualTo(expectedLag[i]);
      if (expectedLag[i] == 0) {
        assertThat(p.timeLag()).isEqualTo(Duration.ZERO);
        continue;
      }
      Instant next = timestamp(base, i, (int) committed[i]);
      assertThat(p.nextRecordTimestamp()).as("next record of %d", i).isEqualTo(next);
      Duration trueAge = Duration.between(next, readAt);
      assertThat(p.timeLag().minus(trueAge).abs())
          .as("time lag %s of partition %d vs true age %s", p.timeLag(), i, trueAge)
          .isLessThanOrEqualTo(Duration.ofSeconds(1));
    }
  }

  @Test
  void stalledStoppedCatchingUpAndIdleGroupsWithASettableClock(TestNamespace ns) throws Exception {
    String bs = ns.stack().kafkaBootstrap();
    String topic = ns.topic("statuses");
    Topics.ensure(bs, topic, 3);
    Instant base = Instant.now().minus(Duration.ofDays(1)).truncatedTo(ChronoUnit.MILLIS);
    for (int p = 0; p < 3; p++) {
      produce(bs, topic, p, base, 0, 20);
    }
    String stalled = ns.group("stalled");
    String stopped = ns.group("stopped");
    String catchingUp = ns.group("catching-up");
    String idle = ns.group("idle");
    commit(bs, stalled, offsets(topic, 5, 5, 5));
    commit(bs, stopped, offsets(topic, 5, 5, 5));
    commit(bs, catchingUp, offsets(topic, 5, 5, 5));
    commit(bs, idle, offsets(topic, 20, 20, 20));

    SettableClock clock = new SettableClock(base.plus(Duration.ofDays(1)));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    LagMetrics metrics = new LagMetrics();
    metrics.bindTo(registry);
    LagStatusConfig window = new LagStatusConfig(Duration.ofMinutes(5), Duration.ofMinutes(1));
    try (LagReader reader = new LagReader(LagReaderConfig.of(bs), clock)) {
      // only this topic: exactly the four groups, one snapshot for all of them
      LagSampler sampler =
          new LagSampler(
              reader, new LagQuery(null, topic), new LagStatusTracker(window), metrics, null);

      LagReport first = sampler.sampleOnce();
      assertThat(first.snapshot().groups())
          .extracting(GroupLag::group)
          .containsExactlyInAnyOrder(stalled, stopped, catchingUp, idle);
      assertThat(statuses(first, stalled, stopped, catchingUp, idle))
          .containsExactly(LagStatus.UNKNOWN, LagStatus.UNKNOWN, LagStatus.UNKNOWN, LagStatus.OK);
      // the time lag is read per group from its own next record, at the reader's clock
      GroupLag slow = first.snapshot().group(stalled).orElseThrow();
      assertThat(slow.partitions())
          .allSatisfy(
              p ->
                  assertThat(p.timeLag())
                      .isEqualTo(
                          Duration.between(timestamp(base, p.partition(), 5), clock.instant())));

      // 90 s later: one group moved on by 10 records per partition, the others did not
      commit(bs, catchingUp, offsets(topic, 15, 15, 15));
      clock.advance(Duration.ofSeconds(90));
      LagReport later = sampler.sampleOnce();
      assertThat(statuses(later, stalled, stopped, catchingUp, idle))
          .containsExactly(
              LagStatus.STALLED, LagStatus.STALLED, LagStatus.CATCHING_UP, LagStatus.OK);
      assertThat(later.partitionStatus())
          .containsEntry(new PartitionKey(stalled, topic, 0), LagStatus.STALLED)
          .containsEntry(new PartitionKey(catchingUp, topic, 2), LagStatus.CATCHING_UP);
      // two groups read partition 0 at different offsets: each got its own next record
      assertThat(later.snapshot().group(catchingUp).orElseThrow().partitions().get(0).timeLag())
          .isEqualTo(Duration.between(timestamp(base, 0, 15), clock.instant()));

      // past the window with no commit and lag: stopped; the idle group is still OK
      clock.advance(Duration.ofMinutes(5));
      LagReport past = sampler.sampleOnce();
      assertThat(past.status(stopped)).isEqualTo(LagStatus.STOPPED);
      assertThat(past.status(idle)).isEqualTo(LagStatus.OK);
      assertThat(past.snapshot().group(stopped).orElseThrow().totalLag()).isEqualTo(45);
      assertThat(past.snapshot().group(idle).orElseThrow().totalLag()).isZero();

      // and the gauges say the same
      assertThat(
              registry
                  .get("ordinal.consumer.group.lag.status")
                  .tags("group", stopped, "status", "STOPPED")
                  .gauge()
                  .value())
          .isEqualTo(1);
      assertThat(
              registry
                  .get("ordinal.consumer.group.lag.status")
                  .tags("group", idle, "status", "OK")
                  .gauge()
                  .value())
          .isEqualTo(1);
      assertThat(
              registry
                  .get("ordinal.consumer.lag.records")
                  .tags("group", stopped, "partition", "1")
                  .gauge()
                  .value())
          .isEqualTo(15);
    }
  }

  @Test
  void anUnknownGroupOrTopicIsOneSentenceNamingIt(TestNamespace ns) {
    String bs = ns.stack().kafkaBootstrap();
    try (LagReader reader = new LagReader(LagReaderConfig.of(bs), Clock.systemUTC())) {
      String group = ns.group("never-ran");
      assertThatThrownBy(() -> reader.read(LagQuery.group(group)))
          .isInstanceOf(ConfigurationException.class)
          .hasMessage(
              "Consumer group "
                  + group
                  + " does not exist on the Kafka cluster at "
                  + bs
                  + "; run without --group to list the groups there.");
      String topic = ns.topic("never-made");
      assertThatThrownBy(() -> reader.read(new LagQuery(null, topic)))
          .isInstanceOf(ConfigurationException.class)
          .hasMessage("Topic " + topic + " does not exist on the Kafka cluster at " + bs + ".");
    }
  }

  private static List<LagStatus> statuses(LagReport r, String... groups) {
    List<LagStatus> out = new ArrayList<>();
    for (String g : groups) {
      out.add(r.status(g));
    }
    return out;
  }

  private static Map<TopicPartition, OffsetAndMetadata> offsets(
      String topic, long... perPartition) {
    Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
    for (int p = 0; p < perPartition.length; p++) {
      out.put(new TopicPartition(topic, p), new OffsetAndMetadata(perPartition[p]));
    }
    return out;
  }

  private static void commit(
      String bs, String group, Map<TopicPartition, OffsetAndMetadata> offsets) throws Exception {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bs))) {
      admin.alterConsumerGroupOffsets(group, offsets).all().get();
    }
  }

  /** Records {@code from .. from+count-1} of partition {@code p}, with explicit timestamps. */
  private static void produce(String bs, String topic, int p, Instant base, int from, int count)
      throws Exception {
    try (KafkaProducer<String, String> producer = TestKafka.producer(bs)) {
      for (int i = from; i < from + count; i++) {
        producer
            .send(
                new ProducerRecord<>(
                    topic, p, timestamp(base, p, i).toEpochMilli(), "k" + i, "v" + i))
            .get();
      }
    }
  }

  /** A live member of {@code group} holding every partition, committing only when told. */
  private static KafkaConsumer<String, String> member(String bs, String group, String topic) {
    KafkaConsumer<String, String> c =
        GroupMember.of(bs, group, Map.of(ConsumerConfig.CLIENT_ID_CONFIG, "lag-it-member"));
    GroupMember.join(c, topic, m -> m.assignment().size() == 3);
    return c;
  }
}
