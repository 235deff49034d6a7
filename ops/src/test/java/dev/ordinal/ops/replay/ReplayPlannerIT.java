package dev.ordinal.ops.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ordinal.messaging.RefusedException;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.ops.GroupMember;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestKafka;
import dev.ordinal.testkit.TestNamespace;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Plans and executes replays on the real broker: exactly the partitions asked for move, to exactly
 * the offsets expected (by offset and by record timestamp), and every unsafe or impossible request
 * is refused with a sentence before anything moves.
 */
@ExtendWith(OrdinalStackExtension.class)
class ReplayPlannerIT {
  static final Duration TIMEOUT = Duration.ofSeconds(10);
  static Admin admin;
  static DSLContext dsl;
  static ReplayLog log;

  @BeforeAll
  static void setUp(TestNamespace ns) {
    admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ns.stack().kafkaBootstrap()));
    ReplayLog.migrate(ns.dataSource(), ns.schema());
    dsl = DSL.using(ns.dataSource(), SQLDialect.POSTGRES);
    log = new ReplayLog(dsl);
  }

  @AfterAll
  static void tearDown() {
    admin.close();
  }

  @Test
  void byOffsetMovesExactlyTheChosenPartitionsToThatOffset(TestNamespace ns) throws Exception {
    String topic = topic(ns, "by-offset", 3);
    String group = ns.group("by-offset");
    Map<Integer, Integer> sizes = Map.of(0, 10, 1, 20, 2, 30);
    sizes.forEach((p, n) -> produce(ns, topic, p, n, null));
    commit(group, topic, Map.of(0, 10L, 1, 20L, 2, 30L));

    ReplayPlan plan =
        planner(Clock.systemUTC())
            .plan(
                new ReplayRequest(
                    group, topic, new TreeSet<>(List.of(2, 0)), new ReplayTarget.ToOffset(5)));

    assertThat(plan.partitions())
        .containsExactly(new PartitionPlan(0, 10, 5, 0, 10), new PartitionPlan(2, 30, 5, 0, 30));
    assertThat(plan.redeliver()).isEqualTo(5 + 25);
    assertThat(plan.skip()).isZero();
    assertThat(committed(group, topic)).as("a plan moves nothing").containsEntry(0, 10L);

    ExecutedReplay done = executor().execute(plan, "alice", "billing");

    assertThat(committed(group, topic)).isEqualTo(Map.of(0, 5L, 1, 20L, 2, 5L));
    assertThat(done.moves())
        .containsExactly(new ExecutedReplay.Move(0, 10, 5), new ExecutedReplay.Move(2, 30, 5));
    ExecutedReplay recorded = log.find(done.id()).orElseThrow();
    assertThat(recorded).isEqualTo(done);
    assertThat(recorded.group()).isEqualTo(group);
    assertThat(recorded.topic()).isEqualTo(topic);
    assertThat(recorded.moves()).isEqualTo(done.moves());
    assertThat(recorded.target()).isEqualTo("--to-offset 5");
    assertThat(recorded.executedBy()).isEqualTo("alice");
    assertThat(recorded.consumer()).contains("billing");
    assertThat(recorded.redelivered()).isEqualTo(30);
    assertThat(log.history(group, topic, 10)).extracting(ExecutedReplay::id).contains(done.id());
  }

  @Test
  void byTimestampMovesEachPartitionToItsFirstRecordAtOrAfterTheTime(TestNamespace ns)
      throws Exception {
    String topic = topic(ns, "by-time", 3);
    String group = ns.group("by-time");
    // in the past (but inside the topic's retention); one record a minute on partition 0, every
    // two minutes on 1, every three on 2
    Instant base = Instant.now().minus(Duration.ofHours(2)).truncatedTo(ChronoUnit.MINUTES);
    produce(ns, topic, 0, 15, i -> base.plus(Duration.ofMinutes(i)));
    produce(ns, topic, 1, 20, i -> base.plus(Duration.ofMinutes(2L * i)));
    produce(ns, topic, 2, 10, i -> base.plus(Duration.ofMinutes(3L * i)));
    commit(group, topic, Map.of(0, 15L, 1, 20L, 2, 10L));
    Instant at = base.plus(Duration.ofMinutes(10)).plusSeconds(30);

    // first record at or after minute 10.5: minute 11 (offset 11), 12 (offset 6), 12 (offset 4)
    ReplayPlan byDatetime =
        planner(Clock.systemUTC())
            .plan(ReplayRequest.allPartitions(group, topic, new ReplayTarget.ToDatetime(at)));
    assertThat(byDatetime.partitions())
        .containsExactly(
            new PartitionPlan(0, 15, 11, 0, 15),
            new PartitionPlan(1, 20, 6, 0, 20),
            new PartitionPlan(2, 10, 4, 0, 10));
    assertThat(byDatetime.redeliver()).isEqualTo(4 + 14 + 6);

    Clock anHourLater = Clock.fixed(at.plus(Duration.ofHours(1)), ZoneOffset.UTC);
    ReplayPlan byDuration =
        new ReplayPlanner(admin, anHourLater, TIMEOUT)
            .plan(
                new ReplayRequest(
                    group,
                    topic,
                    new TreeSet<>(List.of(1, 2)),
                    new ReplayTarget.ByDuration(Duration.ofHours(1))));
    assertThat(byDuration.partitions())
        .extracting(PartitionPlan::partition, PartitionPlan::target)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(1, 6L), org.assertj.core.groups.Tuple.tuple(2, 4L));

    new ReplayExecutor(admin, log, anHourLater, TIMEOUT).execute(byDuration, "bob", null);
    assertThat(committed(group, topic)).isEqualTo(Map.of(0, 15L, 1, 6L, 2, 4L));

    // a time after every record: the end of each log, nothing redelivered
    ReplayPlan later =
        planner(Clock.systemUTC())
            .plan(
                ReplayRequest.allPartitions(
                    group, topic, new ReplayTarget.ToDatetime(base.plus(Duration.ofHours(1)))));
    assertThat(later.partitions()).extracting(PartitionPlan::target).containsExactly(15L, 20L, 10L);

    assertThatThrownBy(
            () ->
                planner(Clock.systemUTC())
                    .plan(
                        ReplayRequest.allPartitions(
                            group,
                            topic,
                            new ReplayTarget.ToDatetime(Instant.now().plusSeconds(3600)))))
        .isInstanceOf(RefusedException.class)
        .hasMessageContaining("is in the future");
  }

  @Test
  void aGroupWithAnActiveMemberIsRefusedAndNothingMoves(TestNamespace ns) throws Exception {
    String topic = topic(ns, "active", 1);
    String group = ns.group("active");
    produce(ns, topic, 0, 5, null);
    ReplayRequest toEarliest =
        ReplayRequest.allPartitions(group, topic, new ReplayTarget.ToEarliest());
    try (KafkaConsumer<String, String> member = member(ns, group)) {
      GroupMember.join(
          member, topic, m -> !m.assignment().isEmpty() && m.position(tp(topic, 0)) == 5);
      member.commitSync();

      assertThatThrownBy(() -> planner(Clock.systemUTC()).plan(toEarliest))
          .isInstanceOf(RefusedException.class)
          .hasMessageContaining("Consumer group " + group + " has 1 active member(s)")
          .hasMessageContaining("stop its consumers");
    }
    // closed: it left the group, which is now empty and may be moved
    ReplayPlan plan = planner(Clock.systemUTC()).plan(toEarliest);
    assertThat(plan.partitions()).containsExactly(new PartitionPlan(0, 5, 0, 0, 5));

    try (KafkaConsumer<String, String> member = member(ns, group)) {
      GroupMember.join(member, topic, m -> !m.assignment().isEmpty());
      assertThatThrownBy(() -> executor().execute(plan, "carol", null))
          .isInstanceOf(RefusedException.class)
          .hasMessageContaining("active member");
    }
    assertThat(committed(group, topic)).isEqualTo(Map.of(0, 5L));
    assertThat(log.history(group, null, 10)).isEmpty();
  }

  @Test
  void targetsOutsideTheLogAreRefusedNamingEarliestAndLatest(TestNamespace ns) throws Exception {
    String topic = readToTheEnd(ns, "range", 1, 10);
    String group = ns.group("range");
    ReplayPlanner planner = planner(Clock.systemUTC());

    assertThatThrownBy(
            () ->
                planner.plan(
                    ReplayRequest.allPartitions(group, topic, new ReplayTarget.ToOffset(11))))
        .isInstanceOf(RefusedException.class)
        .hasMessage(
            "The target is outside the log of topic "
                + topic
                + ": partition 0 to 11 (earliest 0, latest 10).");
    assertThatThrownBy(
            () ->
                planner.plan(
                    ReplayRequest.allPartitions(group, topic, new ReplayTarget.ShiftBy(-11))))
        .isInstanceOf(RefusedException.class)
        .hasMessageContaining("partition 0 to -1 (earliest 0, latest 10)");

    // retention (here: deleteRecords) moves the start of the log
    admin
        .deleteRecords(Map.of(tp(topic, 0), RecordsToDelete.beforeOffset(4)))
        .all()
        .get(10, java.util.concurrent.TimeUnit.SECONDS);
    assertThatThrownBy(
            () ->
                planner.plan(
                    ReplayRequest.allPartitions(group, topic, new ReplayTarget.ToOffset(2))))
        .isInstanceOf(RefusedException.class)
        .hasMessageContaining("partition 0 to 2 (earliest 4, latest 10)");
    assertThat(
            planner
                .plan(ReplayRequest.allPartitions(group, topic, new ReplayTarget.ToEarliest()))
                .partitions())
        .containsExactly(new PartitionPlan(0, 10, 4, 4, 10));
    assertThat(
            planner
                .plan(ReplayRequest.allPartitions(group, topic, new ReplayTarget.ShiftBy(-3)))
                .partitions())
        .containsExactly(new PartitionPlan(0, 10, 7, 4, 10));
    assertThat(committed(group, topic)).isEqualTo(Map.of(0, 10L));
  }

  @Test
  void unknownTopicGroupOrPartitionAndAGroupThatNeverReadTheTopicAreRefused(TestNamespace ns)
      throws Exception {
    String topic = readToTheEnd(ns, "names", 3, 3);
    String group = ns.group("names");
    String other = topic(ns, "names-other", 1);
    ReplayPlanner planner = planner(Clock.systemUTC());
    ReplayTarget earliest = new ReplayTarget.ToEarliest();

    assertThatThrownBy(
            () -> planner.plan(ReplayRequest.allPartitions(group, ns.topic("nope"), earliest)))
        .isInstanceOf(RefusedException.class)
        .hasMessage("Topic " + ns.topic("nope") + " does not exist; check its name.");
    assertThatThrownBy(
            () -> planner.plan(ReplayRequest.allPartitions(ns.group("nobody"), topic, earliest)))
        .isInstanceOf(RefusedException.class)
        .hasMessage(
            "Consumer group "
                + ns.group("nobody")
                + " does not exist (no members, no committed offsets).");
    assertThatThrownBy(
            () ->
                planner.plan(
                    new ReplayRequest(group, topic, new TreeSet<>(List.of(1, 7)), earliest)))
        .isInstanceOf(RefusedException.class)
        .hasMessage("Topic " + topic + " has partitions 0 to 2, not 7.");
    assertThatThrownBy(() -> planner.plan(ReplayRequest.allPartitions(group, other, earliest)))
        .isInstanceOf(RefusedException.class)
        .hasMessageContaining("has no committed offset on topic " + other);
    // partitions 1 and 2 are empty: they count as being at their end
    assertThat(planner.plan(ReplayRequest.allPartitions(group, topic, earliest)).partitions())
        .containsExactly(
            new PartitionPlan(0, 3, 0, 0, 3),
            new PartitionPlan(1, 0, 0, 0, 0),
            new PartitionPlan(2, 0, 0, 0, 0));
  }

  @Test
  void anExecutionIsRefusedWhenTheOffsetsMovedSinceThePlan(TestNamespace ns) throws Exception {
    String topic = readToTheEnd(ns, "moved", 1, 8);
    String group = ns.group("moved");
    ReplayPlan plan =
        planner(Clock.systemUTC())
            .plan(ReplayRequest.allPartitions(group, topic, new ReplayTarget.ToOffset(2)));
    commit(group, topic, Map.of(0, 6L));

    assertThatThrownBy(() -> executor().execute(plan, "dave", null))
        .isInstanceOf(RefusedException.class)
        .hasMessageContaining("partition 0 moved from 8 to 6 since the plan was made; plan again");
    assertThat(committed(group, topic)).isEqualTo(Map.of(0, 6L));
    assertThat(log.history(group, topic, 10)).isEmpty();
  }

  @Test
  void intoANewGroupTheGroupReadMayMoveOnSinceThePlanAndIsNeverMoved(TestNamespace ns)
      throws Exception {
    String topic = readToTheEnd(ns, "source", 1, 8);
    String group = ns.group("source");
    String fresh = ns.group("source-fresh");
    ReplayPlan plan =
        planner(Clock.systemUTC())
            .plan(
                ReplayRequest.allPartitions(group, topic, new ReplayTarget.ShiftBy(-3))
                    .into(fresh));
    assertThat(plan.partitions()).containsExactly(new PartitionPlan(0, 8, 5, 0, 8));
    commit(group, topic, Map.of(0, 6L));

    ExecutedReplay done = executor().execute(plan, "erin", null);
    assertThat(committed(fresh, topic)).isEqualTo(Map.of(0, 5L));
    assertThat(committed(group, topic)).isEqualTo(Map.of(0, 6L));
    assertThat(done.group()).isEqualTo(fresh);
    assertThat(done.target()).isEqualTo("--shift-by -3 from group " + group);
    assertThat(log.history(fresh, topic, 10)).containsExactly(done);
  }

  private static ReplayPlanner planner(Clock clock) {
    return new ReplayPlanner(admin, clock, TIMEOUT);
  }

  private static ReplayExecutor executor() {
    return new ReplayExecutor(admin, log, Clock.systemUTC(), TIMEOUT);
  }

  private static TopicPartition tp(String topic, int partition) {
    return new TopicPartition(topic, partition);
  }

  /** {@code n} records to {@code partition}, with the given timestamps (null: now). */
  static void produce(
      TestNamespace ns,
      String topic,
      int partition,
      int n,
      java.util.function.IntFunction<Instant> timestamps) {
    try (KafkaProducer<String, String> producer = TestKafka.producer(ns.stack().kafkaBootstrap())) {
      for (int i = 0; i < n; i++) {
        Long ts = timestamps == null ? null : timestamps.apply(i).toEpochMilli();
        producer.send(new ProducerRecord<>(topic, partition, ts, "k" + i, "{\"i\":" + i + "}"));
      }
      producer.flush();
    }
  }

  private static void commit(String group, String topic, Map<Integer, Long> offsets)
      throws Exception {
    Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
    offsets.forEach((p, o) -> commit.put(tp(topic, p), new OffsetAndMetadata(o)));
    admin
        .alterConsumerGroupOffsets(group, commit)
        .all()
        .get(10, java.util.concurrent.TimeUnit.SECONDS);
  }

  /**
   * {@code ns}'s topic {@code name} with {@code partitions} partitions and {@code records} records
   * on partition 0, which group {@code ns.group(name)} has committed to the end.
   */
  private static String readToTheEnd(TestNamespace ns, String name, int partitions, int records)
      throws Exception {
    String topic = topic(ns, name, partitions);
    produce(ns, topic, 0, records, null);
    commit(ns.group(name), topic, Map.of(0, (long) records));
    return topic;
  }

  /** {@code ns}'s topic {@code name}, created with {@code partitions} partitions if missing. */
  private static String topic(TestNamespace ns, String name, int partitions) {
    String topic = ns.topic(name);
    Topics.ensure(ns.stack().kafkaBootstrap(), topic, partitions);
    return topic;
  }

  private static Map<Integer, Long> committed(String group, String topic) {
    return new ReplayPlanner(admin, Clock.systemUTC(), TIMEOUT).committedOffsets(group, topic);
  }

  private static KafkaConsumer<String, String> member(TestNamespace ns, String group) {
    return GroupMember.of(ns.stack().kafkaBootstrap(), group, Map.of());
  }
}
