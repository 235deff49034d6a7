package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.lab.devstack.SecuredKafka;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import dev.ordinal.testkit.tls.TestCertificates;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code ./ordinal topics copy} on a broker whose authorizer allows nothing by default (SASL_SSL,
 * {@link SecuredKafka}), as an operator granted one ACL more at each step: DESCRIBE on both topics
 * plans; without READ on --topic, or WRITE on --to-topic (whether the user may WRITE another topic
 * or none), {@code --execute} stops with exit status 2 and the one sentence naming that operation
 * and topic, copying and recording nothing; with READ and WRITE (docs/DEPLOY.md) it copies. A dry
 * run without DESCRIBE on --to-topic names DESCRIBE.
 */
@ExtendWith(OrdinalStackExtension.class)
class TopicsCopyAclsIT extends CommandTest {
  static final String OPERATOR = "operator";
  static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

  @TempDir static Path dir;
  static SecuredKafka kafka;
  static Path operatorFile;

  @BeforeAll
  static void aSecuredBrokerAndAnOperatorWithNoAcl() throws Exception {
    kafka =
        SecuredKafka.start(
            dir.resolve("broker"), TestCertificates.create(dir.resolve("ca")).forKafka());
    Properties p = new Properties();
    kafka.addUser(OPERATOR).forEach((k, v) -> p.setProperty(k, v.toString()));
    operatorFile = dir.resolve(OPERATOR + ".properties");
    try (Writer w = Files.newBufferedWriter(operatorFile)) {
      p.store(w, null);
    }
  }

  @AfterAll
  static void stop() {
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void eachMissingAclIsNamedWithItsOperationAndTopicUntilReadAndWriteAreGranted(TestNamespace ns)
      throws Exception {
    String source = ns.topic("events");
    String target = ns.topic("events-copy");
    String other = ns.topic("events-other");
    try (Admin admin = kafka.admin()) {
      admin
          .createTopics(
              List.of(
                  new NewTopic(source, 1, (short) 1),
                  new NewTopic(target, 1, (short) 1),
                  new NewTopic(other, 1, (short) 1)))
          .all()
          .get();
    }
    Map<String, Object> p = new HashMap<>(kafka.superUserProperties());
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < 3; i++) {
        producer.send(new ProducerRecord<>(source, 0, T0.plusSeconds(i).toEpochMilli(), "k", "{}"));
      }
      producer.flush();
    }
    grant(source, AclOperation.DESCRIBE);
    grant(target, AclOperation.DESCRIBE);

    assertThat(copy(ns, target, false)).as(err.toString()).isZero();
    assertThat(out.toString()).contains("Dry run: would copy 3 offsets of " + source);

    assertThat(copy(ns, target, true)).isEqualTo(2);
    assertThat(refusal()).isEqualTo(sentence("READ", source));
    grant(source, AclOperation.READ);
    // may WRITE no topic: the producer's id is refused as a cluster authorization (KIP-679)
    assertThat(copy(ns, target, true)).isEqualTo(2);
    assertThat(refusal()).isEqualTo(sentence("WRITE", target));
    // may WRITE another topic: the send to the target itself is refused
    grant(ns.topic("elsewhere"), AclOperation.WRITE);
    assertThat(copy(ns, target, true)).isEqualTo(2);
    assertThat(refusal()).isEqualTo(sentence("WRITE", target));
    assertThat(endOffset(target)).as("nothing copied").isZero();
    assertThat(logRows(ns)).as("nothing recorded").isZero();

    grant(target, AclOperation.WRITE);
    assertThat(copy(ns, target, true)).as(err.toString()).isZero();
    assertThat(out.toString()).contains("Copied 3 records, recorded as copy");
    assertThat(endOffset(target)).isEqualTo(3);
    assertThat(logRows(ns)).isEqualTo(1);

    assertThat(copy(ns, other, false)).isEqualTo(2);
    assertThat(refusal()).isEqualTo(sentence("DESCRIBE", other));
  }

  /** {@code topics copy} of the source's first 10 seconds to {@code to}, as the operator. */
  private int copy(TestNamespace ns, String to, boolean execute) {
    clear();
    CommandLine cli = new CommandLine(new TopicsCommand());
    TopicsCommand.Copy copy = cli.getSubcommands().get("copy").getCommand();
    copy.env = new HashMap<>(ns.serverEnvironment());
    copy.env.put("ORDINAL_KAFKA_BOOTSTRAP", kafka.bootstrapServers());
    copy.user = "ops";
    List<String> args =
        new java.util.ArrayList<>(
            List.of(
                "copy",
                "--topic",
                ns.topic("events"),
                "--to-topic",
                to,
                "--from-datetime",
                T0.toString(),
                "--to-datetime",
                T0.plusSeconds(10).toString(),
                "--schema",
                ns.schema(),
                "--command-config",
                operatorFile.toString()));
    if (execute) {
      args.add("--execute");
    }
    return printingHere(cli).execute(args.toArray(String[]::new));
  }

  private static String sentence(String operation, String topic) {
    return "ordinal: The Kafka cluster at "
        + kafka.bootstrapServers()
        + " (ORDINAL_KAFKA_BOOTSTRAP) does not allow "
        + operation
        + " on topic "
        + topic
        + " to the user of the Kafka client properties of "
        + operatorFile
        + " (--command-config); grant it that ACL (docs/DEPLOY.md, \"Kafka ACLs\").";
  }

  private static void grant(String topic, AclOperation operation) throws Exception {
    try (Admin admin = kafka.admin()) {
      admin
          .createAcls(
              List.of(
                  new AclBinding(
                      new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
                      new AccessControlEntry(
                          "User:" + OPERATOR, "*", operation, AclPermissionType.ALLOW))))
          .all()
          .get();
    }
  }

  private static long endOffset(String topic) throws Exception {
    TopicPartition tp = new TopicPartition(topic, 0);
    try (Admin admin = kafka.admin()) {
      return admin.listOffsets(Map.of(tp, OffsetSpec.latest())).all().get().get(tp).offset();
    }
  }

  /** Rows of the schema's topic_copy_log, which the first --execute made before it was refused. */
  private static int logRows(TestNamespace ns) {
    return DSL.using(ns.dataSource(), SQLDialect.POSTGRES)
        .fetchCount(DSL.table(DSL.name(ns.schema(), "topic_copy_log")));
  }
}
