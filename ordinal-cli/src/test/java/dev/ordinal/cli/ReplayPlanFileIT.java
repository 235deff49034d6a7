package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestKafka;
import dev.ordinal.testkit.TestNamespace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.tools.consumer.group.ResetFromFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./ordinal replay --all-topics --export} and {@code --from-file} against the real broker
 * and PostgreSQL, checked against Kafka's own {@code kafka-consumer-groups --reset-offsets
 * --from-file} applying the same file to an identical group.
 */
@ExtendWith(OrdinalStackExtension.class)
class ReplayPlanFileIT extends CommandTest {
  static Admin admin;
  static Map<String, String> env;
  static String orders;
  static String payments;

  @BeforeAll
  static void setUp(TestNamespace ns) {
    env = ns.serverEnvironment();
    admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ns.stack().kafkaBootstrap()));
    orders = ns.topic("orders");
    payments = ns.topic("payments");
    Topics.ensure(ns.stack().kafkaBootstrap(), orders, 2);
    Topics.ensure(ns.stack().kafkaBootstrap(), payments, 3);
    try (KafkaProducer<String, String> producer = TestKafka.producer(ns.stack().kafkaBootstrap())) {
      produce(producer, orders, 0, 10);
      produce(producer, orders, 1, 6);
      produce(producer, payments, 0, 5);
      produce(producer, payments, 1, 8);
      produce(producer, payments, 2, 12);
      producer.flush();
    }
    Migrations.applyInbox(ns.dataSource(), ns.schema());
  }

  @AfterAll
  static void tearDown() {
    admin.close();
  }

  @Test
  void anExportedAllTopicsPlanAppliedFromFileMovesExactlyWhatKafkasOwnToolMoves(
      TestNamespace ns, @TempDir Path dir) throws Exception {
    String mine = ns.group("mine");
    String kafkas = ns.group("kafkas");
    Map<String, Long> before = caughtUp();
    commit(mine, before);
    commit(kafkas, before);
    Path plan = dir.resolve("plan.csv");

    assertThat(
            replay(
                "--group", mine, "--all-topics", "--shift-by", "-4", "--export", plan.toString()))
        .isZero();
    assertThat(out.toString())
        .contains("Replay of consumer group " + mine + " on topic " + orders + ", --shift-by -4:")
        .contains("Replay of consumer group " + mine + " on topic " + payments + ", --shift-by -4:")
        .contains("Plan written to " + plan)
        .contains("Dry run: nothing changed.");
    assertThat(Files.readString(plan))
        .isEqualTo(
            String.join(
                "",
                orders + ",0,6\n",
                orders + ",1,2\n",
                payments + ",0,1\n",
                payments + ",1,4\n",
                payments + ",2,8\n"));
    assertThat(committed(mine)).isEqualTo(before);

    assertThat(
            replay(
                "--group",
                mine,
                "--from-file",
                plan.toString(),
                "--execute",
                "--schema",
                ns.schema()))
        .isZero();
    Map<String, Long> kafkaSet = ResetFromFile.execute(ns.stack().kafkaBootstrap(), kafkas, plan);

    Map<String, Long> expected =
        Map.of(
            orders + "-0", 6L,
            orders + "-1", 2L,
            payments + "-0", 1L,
            payments + "-1", 4L,
            payments + "-2", 8L);
    assertThat(kafkaSet).isEqualTo(expected);
    assertThat(committed(kafkas)).isEqualTo(expected);
    assertThat(committed(mine)).isEqualTo(expected);
    assertThat(out.toString())
        .contains("moved group " + mine + " topic " + payments + " partition 2: 12 -> 8")
        .containsPattern("Executed: replay \\d+, recorded in " + ns.schema() + ".replay_log");

    assertThat(replay("--history", "--group", mine, "--schema", ns.schema())).isZero();
    assertThat(out.toString())
        .contains("topic " + orders + ", --from-file " + plan)
        .contains("topic " + payments + ", --from-file " + plan)
        .contains("partition 0: 5 -> 1, partition 1: 8 -> 4, partition 2: 12 -> 8")
        .contains("partition 0: 10 -> 6, partition 1: 6 -> 2");
  }

  @Test
  void aPlanFileWithAnUnknownPartitionOrAnOffsetOutsideTheLogIsRefusedAndNothingMoves(
      TestNamespace ns, @TempDir Path dir) throws Exception {
    String group = ns.group("refused");
    Map<String, Long> before = caughtUp();
    commit(group, before);
    Path plan = dir.resolve("plan.csv");

    Files.writeString(plan, orders + ",0,3\n" + payments + ",7,0\n");
    assertThat(fromFile(group, plan, ns)).isEqualTo(2);
    assertThat(refusal())
        .isEqualTo("ordinal: Topic " + payments + " has partitions 0 to 2, not 7.");

    Files.writeString(plan, orders + ",0,3\n" + payments + ",1,9\n");
    assertThat(fromFile(group, plan, ns)).isEqualTo(2);
    assertThat(refusal())
        .isEqualTo(
            "ordinal: The target is outside the log of topic "
                + payments
                + ": partition 1 to 9 (earliest 0, latest 8).");

    Files.writeString(plan, orders + ",0,3\n" + ns.topic("nope") + ",0,0\n");
    assertThat(fromFile(group, plan, ns)).isEqualTo(2);
    assertThat(refusal())
        .isEqualTo("ordinal: Topic " + ns.topic("nope") + " does not exist; check its name.");

    Files.writeString(plan, orders + ",0,three\n");
    assertThat(fromFile(group, plan, ns)).isEqualTo(2);
    assertThat(refusal())
        .isEqualTo(
            "ordinal: Line 1 of "
                + plan
                + " ('"
                + orders
                + ",0,three') has 'three' where a number, 0 or more, belongs.");

    assertThat(committed(group)).isEqualTo(before);
  }

  private int fromFile(String group, Path plan, TestNamespace ns) {
    return replay(
        "--group", group, "--from-file", plan.toString(), "--execute", "--schema", ns.schema());
  }

  private int replay(String... args) {
    clear();
    ReplayCommand command = new ReplayCommand();
    command.env = env;
    command.user = "ops";
    return execute(command, args);
  }

  private static Map<String, Long> caughtUp() {
    return Map.of(
        orders + "-0", 10L,
        orders + "-1", 6L,
        payments + "-0", 5L,
        payments + "-1", 8L,
        payments + "-2", 12L);
  }

  private static void produce(
      KafkaProducer<String, String> producer, String topic, int partition, int count) {
    for (int i = 0; i < count; i++) {
      producer.send(new ProducerRecord<>(topic, partition, "k" + i, "{}"));
    }
  }

  private static void commit(String group, Map<String, Long> offsets) throws Exception {
    Map<TopicPartition, Long> moves = new java.util.HashMap<>();
    offsets.forEach(
        (tp, o) -> {
          int dash = tp.lastIndexOf('-');
          moves.put(
              new TopicPartition(tp.substring(0, dash), Integer.parseInt(tp.substring(dash + 1))),
              o);
        });
    GroupOffsets.commit(admin, group, moves);
  }

  private static Map<String, Long> committed(String group) throws Exception {
    return GroupOffsets.committed(admin, group, TopicPartition::toString);
  }
}
