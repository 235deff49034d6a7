package dev.ordinal.cli;

import static dev.ordinal.messaging.db.Tables.INBOX_POSITION;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
  void intoGroupMovesOnlyTheNewGroupAndLeavesTheOriginalGroupAndItsConsumerUntouched(
      TestNamespace ns) throws Exception {
    String group = ns.group("original");
    String fresh = ns.group("fresh");
    commit(group, 10, 3);
    var positions = DSL.using(ns.dataSource(), org.jooq.SQLDialect.POSTGRES);
    positions
        .insertInto(DSL.table(DSL.name(schema, INBOX_POSITION.getName())))
        .columns(
            INBOX_POSITION.CONSUMER,
            INBOX_POSITION.TOPIC,
            INBOX_POSITION.PARTITION_NO,
            INBOX_POSITION.NEXT_OFFSET)
        .values("billing", topic, 1, 3L)
        .execute();

    assertThat(replayOf(group, "--into-group", fresh, "--to-offset", "5")).isZero();
    assertThat(out.toString())
        .contains(
            "Replay of consumer group "
                + fresh
                + " on topic "
                + topic
                + ", --to-offset 5 from group "
                + group
                + ":")
        .containsPattern(row(0, 10, 5, 0, 10, 5))
        .containsPattern(row(1, 3, 5, 0, 6, 0))
        .contains("Dry run: nothing changed.");
    assertThat(committed(group)).isEqualTo(Map.of(0, 10L, 1, 3L));
    assertThat(committed(fresh)).isEmpty();

    assertThat(
            replayOf(
                group, "--into-group", fresh, "--to-offset", "5", "--execute", "--schema", schema))
        .isZero();
    assertThat(committed(fresh)).isEqualTo(Map.of(0, 5L, 1, 5L));
    assertThat(committed(group)).isEqualTo(Map.of(0, 10L, 1, 3L));
    assertThat(
            positions
                .select(DSL.field(DSL.name("next_offset"), Long.class))
                .from(DSL.table(DSL.name(schema, INBOX_POSITION.getName())))
                .where(DSL.field(DSL.name("topic"), String.class).eq(topic))
                .fetch(0, Long.class))
        .containsExactly(3L);

    assertThat(
            replayOf(
                group, "--into-group", fresh, "--to-earliest", "--execute", "--schema", schema))
        .isEqualTo(2);
    assertThat(refusal())
        .isEqualTo(
            "ordinal: Consumer group "
                + fresh
                + " already has committed offsets on "
                + topic
                + " partition(s) 0, 1, so it is not new; give --into-group a group that has none"
                + " there.");
    assertThat(committed(fresh)).isEqualTo(Map.of(0, 5L, 1, 5L));
    assertThat(committed(group)).isEqualTo(Map.of(0, 10L, 1, 3L));

    assertThat(replay("--history", "--group", fresh, "--schema", schema)).isZero();
    assertThat(out.toString())
        .contains(
            "by ops: group "
                + fresh
                + ", topic "
                + topic
                + ", --to-offset 5 from group "
                + group
                + ", consumer billing")
        .contains("partition 0: 10 -> 5, partition 1: 3 -> 5");
  }

  /**
   * On the real servers: --into-group naming --group itself (executed), and --into-group with
   * --history, exit 2 with one sentence; the group's offsets stay 10 and 6, and the schema given
   * gets no replay_log (so no row): nothing was written.
   */
  @Test
  void intoTheSameGroupOrWithHistoryIsRefusedAndWritesNothing(TestNamespace ns) throws Exception {
    String group = ns.group("same");
    String untouched = ns.schema("refused");
    var dsl = DSL.using(ns.dataSource(), org.jooq.SQLDialect.POSTGRES);
    dsl.createSchemaIfNotExists(untouched).execute();
    commit(group, 10, 6);

    assertThat(
            replayOf(
                group, "--into-group", group, "--to-earliest", "--execute", "--schema", untouched))
        .isEqualTo(2);
    assertThat(err.toString().lines().findFirst())
        .contains(
            "--into-group must name a group other than "
                + group
                + ", the one whose offsets are read.");
    assertThat(replay("--history", "--group", group, "--into-group", ns.group("other")))
        .isEqualTo(2);
    assertThat(err.toString().lines().findFirst())
        .contains("--id goes with --report only, --into-group with a target.");

    assertThat(committed(group)).isEqualTo(Map.of(0, 10L, 1, 6L));
    assertThat(
            dsl.fetchCount(
                DSL.table(DSL.name("information_schema", "tables")),
                DSL.field(DSL.name("table_schema")).eq(untouched)))
        .as("no replay_log, nor any table, in " + untouched)
        .isZero();
  }

  @Test
  void jsonGivesOneDocumentForTheDryRunTheExecutionTheHistoryAndTheReport(TestNamespace ns)
      throws Exception {
    String group = ns.group("json");
    commit(group, 10, 6);

    assertThat(replayOf(group, "--to-offset", "4", "--json")).isZero();
    JsonNode dry = json();
    assertThat(dry.get("execute").asBoolean()).isFalse();
    assertThat(dry.get("export").isNull()).isTrue();
    assertPlan(dry, group);
    assertThat(committed(group)).isEqualTo(Map.of(0, 10L, 1, 6L));

    assertThat(replayOf(group, "--to-offset", "4", "--json", "--execute", "--schema", schema))
        .isZero();
    JsonNode executed = json();
    assertThat(executed.get("execute").asBoolean()).isTrue();
    assertPlan(executed, group);
    assertThat(executed.get("replays")).hasSize(1);
    JsonNode replay = executed.get("replays").get(0);
    assertReplay(replay, group);
    assertThat(err.toString().lines())
        .containsExactly(
            "moved group " + group + " topic " + topic + " partition 0: 10 -> 4",
            "moved group " + group + " topic " + topic + " partition 1: 6 -> 4");
    assertThat(committed(group)).isEqualTo(Map.of(0, 4L, 1, 4L));

    assertThat(replay("--history", "--group", group, "--schema", schema, "--json")).isZero();
    JsonNode history = json();
    assertThat(history.get("replays")).hasSize(1);
    assertThat(history.get("replays").get(0)).isEqualTo(replay);

    assertThat(replay("--report", "--group", group, "--schema", schema, "--json")).isZero();
    JsonNode report = json();
    assertThat(report.get("replay")).isEqualTo(replay);
    assertThat(report.get("consumer").asText()).isEqualTo("billing");
    assertThat(report.get("redelivered").asLong()).isEqualTo(8);
    assertThat(report.get("duplicates").asLong()).isEqualTo(8);
    assertThat(report.get("newEffects").asLong()).isZero();
    assertThat(report.get("read").asLong()).isZero();
    assertThat(report.get("caughtUp").asBoolean()).isFalse();
    assertThat(report.get("partitions").get(1).get("committed").asLong()).isEqualTo(4);
    assertThat(report.get("partitions").get(1).get("from").asLong()).isEqualTo(6);
  }

  /** Standard output: exactly one line, one JSON document. */
  private JsonNode json() throws Exception {
    assertThat(out.toString().lines()).hasSize(1);
    return new ObjectMapper().readTree(out.toString());
  }

  /** One plan of {@code group} on the topic, --to-offset 4 from 10 and 6. */
  private static void assertPlan(JsonNode doc, String group) {
    assertThat(doc.get("plans")).hasSize(1);
    JsonNode plan = doc.get("plans").get(0);
    assertThat(plan.get("group").asText()).isEqualTo(group);
    assertThat(plan.get("sourceGroup").asText()).isEqualTo(group);
    assertThat(plan.get("topic").asText()).isEqualTo(topic);
    assertThat(plan.get("target").asText()).isEqualTo("--to-offset 4");
    assertThat(plan.get("redeliver").asLong()).isEqualTo(8);
    assertThat(plan.get("skip").asLong()).isZero();
    assertThat(plan.get("partitions")).hasSize(2);
    long[][] rows = {{0, 10, 4, 0, 10, 6, 0}, {1, 6, 4, 0, 6, 2, 0}};
    String[] fields = {"partition", "current", "new", "earliest", "latest", "redeliver", "skip"};
    for (int p = 0; p < rows.length; p++) {
      for (int f = 0; f < fields.length; f++) {
        assertThat(plan.get("partitions").get(p).get(fields[f]).asLong())
            .as("partition %d %s", p, fields[f])
            .isEqualTo(rows[p][f]);
      }
    }
  }

  /** The replay executed from {@link #assertPlan}'s plan. */
  private static void assertReplay(JsonNode replay, String group) {
    assertThat(replay.get("id").asLong()).isPositive();
    assertThat(replay.get("group").asText()).isEqualTo(group);
    assertThat(replay.get("topic").asText()).isEqualTo(topic);
    assertThat(replay.get("target").asText()).isEqualTo("--to-offset 4");
    assertThat(replay.get("executedBy").asText()).isEqualTo("ops");
    assertThat(replay.get("consumer").asText()).isEqualTo("billing");
    assertThat(replay.get("redelivered").asLong()).isEqualTo(8);
    assertThat(replay.get("moves").toString())
        .isEqualTo(
            "[{\"partition\":0,\"from\":10,\"to\":4,\"redelivered\":6},"
                + "{\"partition\":1,\"from\":6,\"to\":4,\"redelivered\":2}]");
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
      // explicit offsets: a position not yet fetched would leave a partition uncommitted
      member.commitSync(
          Map.of(
              new TopicPartition(topic, 0), new OffsetAndMetadata(10),
              new TopicPartition(topic, 1), new OffsetAndMetadata(6)));

      assertThat(replayOf(group, "--to-earliest", "--execute", "--schema", schema)).isEqualTo(2);
      assertThat(refusal())
          .startsWith(
              "ordinal: Consumer group " + group + " has 1 active member(s) (billing-1) and is")
          .endsWith(
              "stop its consumers and wait until the group is Empty before moving its offsets.");

      // replaying into a new group only reads the running one
      String fresh = ns.group("active-fresh");
      assertThat(
              replayOf(
                  group, "--into-group", fresh, "--to-earliest", "--execute", "--schema", schema))
          .isZero();
      assertThat(committed(fresh)).isEqualTo(Map.of(0, 0L, 1, 0L));
      assertThat(committed(group)).isEqualTo(Map.of(0, 10L, 1, 6L));
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
    GroupOffsets.commit(
        admin, group, Map.of(new TopicPartition(topic, 0), p0, new TopicPartition(topic, 1), p1));
  }

  private static Map<Integer, Long> committed(String group) throws Exception {
    return GroupOffsets.committed(admin, group, TopicPartition::partition);
  }
}
