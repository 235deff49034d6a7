package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.lab.devstack.StackConfig;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestKafka;
import dev.ordinal.testkit.TestNamespace;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code ./ordinal replay} against the real servers: the dry run, execute, history and report, and
 * one sentence with exit status 2 for every bad input.
 */
@ExtendWith(OrdinalStackExtension.class)
class ReplayCommandIT extends CommandTest {
  static Admin admin;
  static Map<String, String> env;
  static String topic;
  static String schema;

  @BeforeAll
  static void setUp(TestNamespace ns) {
    env = ns.serverEnvironment();
    schema = ns.schema();
    topic = ns.topic("order");
    admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ns.stack().kafkaBootstrap()));
    Topics.ensure(ns.stack().kafkaBootstrap(), topic, 2);
    try (KafkaProducer<String, String> producer = TestKafka.producer(ns.stack().kafkaBootstrap())) {
      for (int i = 0; i < 16; i++) {
        producer.send(new ProducerRecord<>(topic, i < 10 ? 0 : 1, "k" + i, "{}"));
      }
      producer.flush();
    }
    Migrations.applyInbox(ns.dataSource(), schema);
    DSL.using(ns.dataSource(), org.jooq.SQLDialect.POSTGRES)
        .createSchemaIfNotExists(ns.schema("empty"))
        .execute();
  }

  @AfterAll
  static void tearDown() {
    admin.close();
  }

  private int replay(Map<String, String> env, String... args) {
    clear();
    ReplayCommand command = new ReplayCommand();
    command.env = env;
    command.user = "ops";
    return execute(command, args);
  }

  private int replay(String... args) {
    return replay(env, args);
  }

  /** {@code replay --group group --topic topic} with {@code args}. */
  private int replayOf(String group, String... args) {
    String[] all = new String[args.length + 4];
    all[0] = "--group";
    all[1] = group;
    all[2] = "--topic";
    all[3] = topic;
    System.arraycopy(args, 0, all, 4, args.length);
    return replay(all);
  }

  @Test
  void aDryRunPrintsThePlanOfTheChosenPartitionsAndMovesNothing(TestNamespace ns) throws Exception {
    String group = ns.group("dry");
    commit(group, 10, 6);

    assertThat(replayOf(group, "--partitions", "1", "--to-offset", "2", "--schema", schema))
        .isZero();

    assertThat(out.toString())
        .contains("Replay of consumer group " + group + " on topic " + topic + ", --to-offset 2:")
        .containsPattern(row(1, 6, 2, 0, 6, 4))
        .doesNotContainPattern(Pattern.compile("(?m)^\\s+0\\s+10\\s"))
        .contains("4 record(s) will be delivered again.")
        .contains("Dry run: nothing changed. Add --execute to apply it.");
    assertThat(committed(group)).isEqualTo(Map.of(0, 10L, 1, 6L));
  }

  @Test
  void anExecutedReplayIsRecordedListedAndReported(TestNamespace ns) throws Exception {
    String group = ns.group("executed");
    commit(group, 10, 6);

    assertThat(replayOf(group, "--to-earliest", "--execute", "--schema", schema)).isZero();
    assertThat(out.toString())
        .containsPattern(row(0, 10, 0, 0, 10, 10))
        .containsPattern(row(1, 6, 0, 0, 6, 6))
        .contains("16 record(s) will be delivered again.")
        .containsPattern("Executed: replay \\d+, recorded in " + schema + ".replay_log by ops");
    assertThat(committed(group)).isEqualTo(Map.of(0, 0L, 1, 0L));

    assertThat(replay("--history", "--group", group, "--schema", schema)).isZero();
    assertThat(out.toString())
        .contains(
            "by ops: group " + group + ", topic " + topic + ", --to-earliest, consumer billing")
        .contains("partition 0: 10 -> 0, partition 1: 6 -> 0")
        .contains("16 record(s) delivered again");

    assertThat(replay("--report", "--group", group, "--schema", schema)).isZero();
    assertThat(out.toString())
        .contains("inbox consumer billing")
        .contains("redelivered 16, duplicates 16, new effects 0")
        .contains("NOT CAUGHT UP: the group has read 0 of the 16 redelivered records")
        .contains("partition 0 at 0 of 10, partition 1 at 0 of 6");

    assertThat(replay("--report", "--id", "999999", "--schema", schema)).isEqualTo(2);
    assertThat(refusal())
        .isEqualTo("ordinal: No replay 999999 is recorded in schema " + schema + ".");
  }

  @Test
  void unknownNamesOutOfRangeOffsetsAndFutureTimesAreRefusedWithOneSentence(TestNamespace ns)
      throws Exception {
    String group = ns.group("bad");
    commit(group, 10, 6);

    assertThat(replay("--group", group, "--topic", ns.topic("nope"), "--to-earliest")).isEqualTo(2);
    assertThat(refusal())
        .isEqualTo("ordinal: Topic " + ns.topic("nope") + " does not exist; check its name.");

    assertThat(replayOf(ns.group("nobody"), "--to-earliest")).isEqualTo(2);
    assertThat(refusal())
        .isEqualTo(
            "ordinal: Consumer group "
                + ns.group("nobody")
                + " does not exist (no members, no committed offsets).");

    assertThat(replayOf(group, "--to-offset", "11")).isEqualTo(2);
    assertThat(refusal())
        .isEqualTo(
            "ordinal: The target is outside the log of topic "
                + topic
                + ": partition 0 to 11 (earliest 0, latest 10); partition 1 to 11 (earliest 0,"
                + " latest 6).");

    assertThat(replayOf(group, "--shift-by", "-7")).isEqualTo(2);
    assertThat(refusal()).contains("partition 1 to -1 (earliest 0, latest 6)");

    assertThat(replayOf(group, "--partitions", "5", "--to-earliest")).isEqualTo(2);
    assertThat(refusal()).isEqualTo("ordinal: Topic " + topic + " has partitions 0 to 1, not 5.");

    assertThat(replayOf(group, "--to-datetime", "2999-01-01T00:00:00Z")).isEqualTo(2);
    assertThat(refusal()).startsWith("ordinal: The time 2999-01-01T00:00:00Z is in the future");

    assertThat(replayOf(group, "--to-earliest", "--execute", "--schema", "nope")).isEqualTo(2);
    assertThat(refusal()).startsWith("ordinal: Schema nope does not exist in jdbc:postgresql://");

    assertThat(replay("--history", "--schema", ns.schema("empty"))).isEqualTo(2);
    assertThat(refusal())
        .isEqualTo(
            "ordinal: No replay is recorded in schema "
                + ns.schema("empty")
                + " (it has no replay_log).");

    Map<String, String> noDatabase = new HashMap<>(env);
    noDatabase.put(StackConfig.ENV_DB_URL, "jdbc:postgresql://127.0.0.1:1/nowhere");
    assertThat(replay(noDatabase, "--history")).isEqualTo(2);
    assertThat(refusal())
        .startsWith("ordinal: Cannot connect to PostgreSQL at jdbc:postgresql://127.0.0.1:1/");
    assertThat(committed(group)).isEqualTo(Map.of(0, 10L, 1, 6L));
  }

  @Test
  void aGroupWithAnActiveMemberIsRefused(TestNamespace ns) throws Exception {
    String group = ns.group("active");
    try (KafkaConsumer<String, String> member =
        new KafkaConsumer<>(
            Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                ns.stack().kafkaBootstrap(),
                ConsumerConfig.GROUP_ID_CONFIG,
                group,
                ConsumerConfig.CLIENT_ID_CONFIG,
                "billing-1",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest"),
            new StringDeserializer(),
            new StringDeserializer())) {
      member.subscribe(List.of(topic));
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                member.poll(Duration.ofMillis(100));
                return !member.assignment().isEmpty();
              });
      member.commitSync();

      assertThat(replayOf(group, "--to-earliest", "--execute", "--schema", schema)).isEqualTo(2);
      assertThat(refusal())
          .startsWith(
              "ordinal: Consumer group " + group + " has 1 active member(s) (billing-1) and is")
          .endsWith(
              "stop its consumers and wait until the group is Empty before moving its offsets.");
    }
  }

  private static Pattern row(long... values) {
    StringBuilder p = new StringBuilder("(?m)^");
    for (long v : values) {
      p.append("\\s+").append(v);
    }
    return Pattern.compile(p.append("\\s*$").toString());
  }

  private static void commit(String group, long p0, long p1) throws Exception {
    Map<TopicPartition, OffsetAndMetadata> offsets =
        Map.of(
            new TopicPartition(topic, 0), new OffsetAndMetadata(p0),
            new TopicPartition(topic, 1), new OffsetAndMetadata(p1));
    admin.alterConsumerGroupOffsets(group, offsets).all().get(10, TimeUnit.SECONDS);
  }

  private static Map<Integer, Long> committed(String group) throws Exception {
    Map<Integer, Long> offsets = new HashMap<>();
    admin
        .listConsumerGroupOffsets(group)
        .partitionsToOffsetAndMetadata()
        .get(10, TimeUnit.SECONDS)
        .forEach((tp, o) -> offsets.put(tp.partition(), o.offset()));
    return offsets;
  }
}
