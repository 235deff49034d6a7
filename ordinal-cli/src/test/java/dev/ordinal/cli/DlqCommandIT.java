package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordinal.contracts.Channel;
import dev.ordinal.contracts.EventCodec;
import dev.ordinal.contracts.EventType;
import dev.ordinal.contracts.OrderPlacedV1;
import dev.ordinal.messaging.inbox.InboxConsumerConfig;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.ops.dlq.DeadLetter;
import dev.ordinal.ops.replay.ReplayLog;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestKafka;
import dev.ordinal.testkit.TestNamespace;
import dev.ordinal.testkit.TopicReads;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import picocli.CommandLine;

/**
 * {@code ./ordinal dlq} against the real servers: list, show, and re-drive with a filter, recorded;
 * one sentence with exit status 2 for bad input.
 */
@ExtendWith(OrdinalStackExtension.class)
class DlqCommandIT extends CommandTest {
  private int dlq(TestNamespace ns, String... args) {
    clear();
    CommandLine cli = new CommandLine(new DlqCommand());
    for (CommandLine sub : cli.getSubcommands().values()) {
      DlqCommand.Selection selection = ((DlqCommand.Subcommand) sub.getCommand()).selection;
      selection.env = ns.serverEnvironment();
      selection.user = "ops";
    }
    return printingHere(cli).execute(args);
  }

  @Test
  void listShowAndRedriveWithAFilterAndRecordIt(TestNamespace ns) {
    String topic = ns.topic("order");
    String dlq = InboxConsumerConfig.deadLetterTopic(topic);
    String bootstrap = ns.stack().kafkaBootstrap();
    Topics.ensure(bootstrap, topic, 1);
    Topics.ensure(bootstrap, dlq, 1);
    try (KafkaProducer<String, String> producer = TestKafka.producer(bootstrap)) {
      producer.send(deadLetter(dlq, topic, "m-1", 5, "unknown currency XXX"));
      producer.send(deadLetter(dlq, topic, "m-2", 6, "no such customer"));
      producer.send(deadLetter(dlq, topic, null, 7, "Record has no message-id header"));
      producer.flush();
    }

    assertThat(dlq(ns, "list", "--topic", dlq, "--schema", ns.schema())).isZero();
    assertThat(out.toString())
        .contains("3 dead letter(s) in " + dlq + " (all)")
        .containsPattern("0@0 .* " + topic + " 0@5 +m-1 +billing +0  unknown currency XXX")
        .containsPattern("0@2 .* " + topic + " 0@7 +- +billing");

    assertThat(dlq(ns, "show", "--topic", dlq, "--where", "message-id=m-2")).isZero();
    assertThat(out.toString())
        .contains(dlq + " 0@1")
        .contains("error       no such customer")
        .contains("key         order-m-2")
        .contains("headers     message-id=m-2, event-type=" + EventType.ORDER_PLACED.wireName())
        .doesNotContain("headers     dlq-")
        .contains("payload     " + payload("m-2"))
        .doesNotContain("m-1");

    assertThat(executed(ns, "redrive", dlq, ns.schema(), "--where", "error~=CURRENCY")).isZero();
    assertThat(out.toString())
        .contains("Re-drove 1 dead letter(s) of " + dlq + " (error~=CURRENCY)")
        .contains("0@0 -> " + topic + " 0@0  message-id m-1");
    assertThat(executed(ns, "redrive", dlq, ns.schema())).isZero();
    assertThat(out.toString())
        .contains("Re-drove 2 dead letter(s)")
        .contains("message-id m-1  (re-driven 1 time(s) before)")
        .contains("Skipped 1:")
        .contains("0@2: no message-id header");
    assertThat(
            dlq(ns, "list", "--topic", dlq, "--where", "message-id=m-1", "--schema", ns.schema()))
        .isZero();
    assertThat(out.toString()).containsPattern("m-1 +billing +2  ");

    List<ConsumerRecord<String, String>> source = read(bootstrap, topic);
    assertThat(source).hasSize(3);
    assertThat(source)
        .extracting(r -> MessageHeaders.get(r.headers(), MessageHeaders.MESSAGE_ID).orElseThrow())
        .containsExactly("m-1", "m-1", "m-2");
    assertThat(source.get(0).headers().toArray()).noneMatch(h -> h.key().startsWith("dlq-"));
  }

  /**
   * In a Spring-named topic ({@code .DLT}): three of Ordinal's letters (one re-driven 3 times
   * already) and one as Spring Kafka writes it. A dry run changes nothing; the loop guard refuses
   * at its limit; a discard is recorded and skipped from then on; --json parses.
   */
  @Test
  void dryRunByDefaultLoopGuardDiscardSpringHeadersAndJson(TestNamespace ns) throws Exception {
    String topic = ns.topic("spring-order");
    String dlq = topic + ".DLT";
    String bootstrap = ns.stack().kafkaBootstrap();
    Topics.ensure(bootstrap, topic, 1);
    Topics.ensure(bootstrap, dlq, 1);
    ReplayLog.migrate(ns.dataSource(), ns.schema());
    try (KafkaProducer<String, String> producer = TestKafka.producer(bootstrap)) {
      producer.send(deadLetter(dlq, topic, "m-1", 5, "unknown currency XXX"));
      producer.send(deadLetter(dlq, topic, "m-2", 6, "unknown currency XXX"));
      ProducerRecord<String, String> looping = deadLetter(dlq, topic, "m-3", 7, "no such customer");
      looping.headers().add(DeadLetter.REDRIVE_COUNT, MessageHeaders.encode("3"));
      producer.send(looping);
      // as Spring Kafka's DeadLetterPublishingRecoverer writes it: partition and offset binary
      ProducerRecord<String, String> spring =
          new ProducerRecord<>(dlq, "order-m-4", payload("m-4"));
      spring.headers().add(MessageHeaders.MESSAGE_ID, MessageHeaders.encode("m-4"));
      spring.headers().add("kafka_dlt-original-topic", MessageHeaders.encode(topic));
      spring
          .headers()
          .add("kafka_dlt-original-partition", ByteBuffer.allocate(4).putInt(0).array());
      spring.headers().add("kafka_dlt-original-offset", ByteBuffer.allocate(8).putLong(42).array());
      spring
          .headers()
          .add(
              "kafka_dlt-exception-fqcn", MessageHeaders.encode("java.lang.IllegalStateException"));
      spring.headers().add("kafka_dlt-exception-message", MessageHeaders.encode("bad state"));
      spring
          .headers()
          .add("kafka_dlt-original-consumer-group", MessageHeaders.encode("spring-group"));
      producer.send(spring);
      producer.flush();
    }
    String schema = ns.schema();

    assertThat(dlq(ns, "list", "--topic", dlq, "--schema", schema, "--group-by", "error")).isZero();
    assertThat(out.toString())
        .contains("4 dead letter(s) in " + dlq + " (all)")
        .contains("       2  unknown currency XXX")
        .contains("       1  java.lang.IllegalStateException: bad state")
        .contains("       1  no such customer")
        .doesNotContain("partition@offset");
    assertThat(dlq(ns, "list", "--topic", dlq, "--schema", schema, "--json")).isZero();
    JsonNode list = new ObjectMapper().readTree(out.toString());
    assertThat(list.get("count").asInt()).isEqualTo(4);
    assertThat(list.get("byError").get("unknown currency XXX").asInt()).isEqualTo(2);
    JsonNode m4 = list.get("letters").get(3);
    assertThat(m4.get("originalTopic").asText()).isEqualTo(topic);
    assertThat(m4.get("originalPartition").asInt()).isZero();
    assertThat(m4.get("originalOffset").asLong()).isEqualTo(42);
    assertThat(m4.get("error").asText()).isEqualTo("java.lang.IllegalStateException: bad state");
    assertThat(m4.get("consumer").asText()).isEqualTo("spring-group");
    assertThat(
            dlq(
                ns,
                "show",
                "--topic",
                dlq,
                "--schema",
                schema,
                "--where",
                "message-id=m-4",
                "--json"))
        .isZero();
    JsonNode shown = new ObjectMapper().readTree(out.toString()).get("letters").get(0);
    assertThat(shown.get("key").asText()).isEqualTo("order-m-4");
    assertThat(shown.get("payload").asText()).isEqualTo(payload("m-4"));
    assertThat(shown.get("headers").fieldNames()).toIterable().containsExactly("message-id");

    // the default is a dry run: the plan, and nothing produced or recorded; m-3 refused (exit 1)
    assertThat(dlq(ns, "redrive", "--topic", dlq, "--schema", schema)).isEqualTo(1);
    assertThat(out.toString())
        .contains("Dry run: would re-drive 3 dead letter(s) of " + dlq + " (all); nothing was")
        .contains("       3 to " + topic)
        .contains("       2 with error unknown currency XXX")
        .contains("0@3 -> " + topic + " 0  message-id m-4")
        .contains("Refused 1 (at most 3 re-drives):")
        .contains("0@2 message-id m-3: re-driven 3 time(s) already, the limit: discard it");
    assertThat(dlq(ns, "redrive", "--topic", dlq, "--schema", schema, "--json")).isEqualTo(1);
    JsonNode dry = new ObjectMapper().readTree(out.toString());
    assertThat(dry.get("executed").asBoolean()).isFalse();
    assertThat(dry.get("counts").get("redriven").asInt()).isEqualTo(3);
    assertThat(dry.get("counts").get("refused").asInt()).isEqualTo(1);
    assertThat(dry.get("byTopic").get(topic).asInt()).isEqualTo(3);
    assertThat(dry.get("redriven").get(0).get("to").get("offset").isNull()).isTrue();
    assertThat(dry.get("refused").get(0).get("messageId").asText()).isEqualTo("m-3");
    assertThat(read(bootstrap, topic)).isEmpty();
    assertThat(read(bootstrap, dlq)).hasSize(4);
    assertThat(logRows(ns, null)).isZero();

    // raising the limit lets m-3 go, with its count one higher
    assertThat(
            executed(
                ns, "redrive", dlq, schema, "--where", "message-id=m-3", "--max-redrives", "4"))
        .isZero();
    assertThat(out.toString()).contains("message-id m-3  (re-driven 3 time(s) before)");
    assertThat(read(bootstrap, topic))
        .singleElement()
        .satisfies(
            r ->
                assertThat(MessageHeaders.get(r.headers(), DeadLetter.REDRIVE_COUNT))
                    .contains("4"));

    assertThat(dlq(ns, "discard", "--topic", dlq, "--schema", schema, "--where", "message-id=m-3"))
        .isZero();
    assertThat(out.toString()).contains("Dry run: would discard 1 dead letter(s) of " + dlq);
    assertThat(logRows(ns, "discard")).isZero();
    assertThat(executed(ns, "discard", dlq, schema, "--where", "message-id=m-3", "--json"))
        .isZero();
    JsonNode discard = new ObjectMapper().readTree(out.toString());
    assertThat(discard.get("executed").asBoolean()).isTrue();
    assertThat(discard.get("count").asInt()).isEqualTo(1);
    assertThat(logRows(ns, "discard")).isEqualTo(1);

    assertThat(dlq(ns, "list", "--topic", dlq, "--schema", schema)).isZero();
    assertThat(out.toString())
        .contains("3 dead letter(s) in " + dlq + " (all); 1 discarded, not shown")
        .doesNotContain("m-3");
    assertThat(executed(ns, "redrive", dlq, schema)).isZero();
    assertThat(out.toString())
        .contains("Re-drove 3 dead letter(s) of " + dlq)
        .contains("0@3 -> " + topic + " 0@3  message-id m-4")
        .contains("0@2: discarded");
    List<ConsumerRecord<String, String>> source = read(bootstrap, topic);
    assertThat(source).hasSize(4);
    assertThat(source.get(3).headers().toArray()).noneMatch(h -> h.key().startsWith("kafka_dlt-"));
    assertThat(logRows(ns, "redrive")).isEqualTo(4);

    assertThat(dlq(ns, "redrive", "--topic", dlq, "--schema", schema, "--max-redrives", "0"))
        .isEqualTo(2);
    assertThat(refusal()).isEqualTo("ordinal: --max-redrives must be at least 1, not 0.");
  }

  /**
   * 2,500 dead letters: a dry run prints nothing on stderr; executed (with a clock that stands
   * still, so only the count brings a line), stderr has a progress line at 1,000, 2,000 and 2,500
   * acknowledged, and stdout is the one JSON document it always was.
   */
  @Test
  void anExecutedRedriveTellsItsProgressOnStderrEveryThousandRecords(TestNamespace ns)
      throws Exception {
    String topic = ns.topic("bulk-order");
    String dlq = InboxConsumerConfig.deadLetterTopic(topic);
    String bootstrap = ns.stack().kafkaBootstrap();
    Topics.ensure(bootstrap, topic, 1);
    Topics.ensure(bootstrap, dlq, 1);
    try (KafkaProducer<String, String> producer = TestKafka.producer(bootstrap)) {
      for (int i = 0; i < 2_500; i++) {
        producer.send(deadLetter(dlq, topic, "m-" + i, i, "unknown currency XXX"));
      }
      producer.flush();
    }
    String schema = ns.schema("progress");
    DSL.using(ns.dataSource(), SQLDialect.POSTGRES).createSchemaIfNotExists(schema).execute();

    assertThat(stillClock(ns, "redrive", "--topic", dlq, "--schema", schema)).isZero();
    assertThat(out.toString()).contains("Dry run: would re-drive 2500 dead letter(s) of " + dlq);
    assertThat(err.toString()).isEmpty();

    assertThat(stillClock(ns, "redrive", "--execute", "--topic", dlq, "--schema", schema, "--json"))
        .isZero();
    assertThat(err.toString().lines())
        .containsExactly(
            "redriven 1,000 of 2,500 dead letters of " + dlq,
            "redriven 2,000 of 2,500 dead letters of " + dlq,
            "redriven 2,500 of 2,500 dead letters of " + dlq);
    assertThat(out.toString()).doesNotContain("redriven 1,000");
    JsonNode done =
        new ObjectMapper()
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .readTree(out.toString());
    assertThat(done.get("executed").asBoolean()).isTrue();
    assertThat(done.get("counts").get("redriven").asInt()).isEqualTo(2_500);
    assertThat(read(bootstrap, topic)).hasSize(2_500);
    assertThat(
            DSL.using(ns.dataSource(), SQLDialect.POSTGRES)
                .fetchCount(DSL.table(DSL.name(schema, "dlq_redrive_log"))))
        .isEqualTo(2_500);
  }

  /** {@link #dlq} with a clock that stands still. */
  private int stillClock(TestNamespace ns, String... args) {
    clear();
    CommandLine cli = new CommandLine(new DlqCommand());
    for (CommandLine sub : cli.getSubcommands().values()) {
      DlqCommand.Selection selection = ((DlqCommand.Subcommand) sub.getCommand()).selection;
      selection.env = ns.serverEnvironment();
      selection.user = "ops";
      selection.clock = Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"), ZoneOffset.UTC);
    }
    return printingHere(cli).execute(args);
  }

  /** Rows of the schema's dlq_redrive_log, of one action or (null) all. */
  /** {@code dlq <command> --execute --topic <dlq> --schema <schema> <more>}; its exit status. */
  private int executed(
      TestNamespace ns, String command, String dlq, String schema, String... more) {
    List<String> args =
        new java.util.ArrayList<>(
            List.of(command, "--execute", "--topic", dlq, "--schema", schema));
    args.addAll(List.of(more));
    return dlq(ns, args.toArray(String[]::new));
  }

  private static int logRows(TestNamespace ns, String action) {
    DSLContext dsl = DSL.using(ns.dataSource(), SQLDialect.POSTGRES);
    return dsl.fetchCount(
        DSL.table(DSL.name(ns.schema(), "dlq_redrive_log")),
        action == null
            ? DSL.trueCondition()
            : DSL.field(DSL.name("action"), String.class).eq(action));
  }

  @Test
  void badTopicsAndSchemasAreRefusedWithOneSentence(TestNamespace ns) {
    Topics.ensure(ns.stack().kafkaBootstrap(), ns.topic("plain"), 1);
    assertThat(dlq(ns, "list", "--topic", ns.topic("nope.dlq"))).isEqualTo(2);
    assertThat(refusal())
        .isEqualTo("ordinal: Topic " + ns.topic("nope.dlq") + " does not exist; check its name.");
    assertThat(dlq(ns, "show", "--topic", ns.topic("plain"))).isEqualTo(2);
    assertThat(refusal())
        .isEqualTo(
            "ordinal: '"
                + ns.topic("plain")
                + "' is not a dead-letter topic: name one as <topic>.dlq (or Spring Kafka's"
                + " <topic>.DLT or <topic>-dlt).");
    assertThat(dlq(ns, "redrive", "--topic", ns.topic("plain.dlq"), "--schema", "nope"))
        .isEqualTo(2);
    assertThat(refusal()).startsWith("ordinal: Schema nope does not exist in jdbc:postgresql://");
  }

  /** What a dead letter holds: the {@code OrderPlaced} of an order named by its message id. */
  private static String payload(String messageId) {
    return EventCodec.toJson(
        new OrderPlacedV1(
            UUID.nameUUIDFromBytes(String.valueOf(messageId).getBytes(StandardCharsets.UTF_8)),
            "c",
            "EUR",
            Channel.INTERACTIVE,
            null,
            new BigDecimal("1.00"),
            List.of(),
            null));
  }

  private static ProducerRecord<String, String> deadLetter(
      String dlq, String topic, String messageId, long offset, String error) {
    ProducerRecord<String, String> r =
        new ProducerRecord<>(dlq, "order-" + messageId, payload(messageId));
    if (messageId != null) {
      r.headers().add(MessageHeaders.MESSAGE_ID, MessageHeaders.encode(messageId));
    }
    r.headers()
        .add(MessageHeaders.EVENT_TYPE, MessageHeaders.encode(EventType.ORDER_PLACED.wireName()));
    r.headers().add(MessageHeaders.DLQ_ERROR, MessageHeaders.encode(error));
    r.headers().add(MessageHeaders.DLQ_CONSUMER, MessageHeaders.encode("billing"));
    r.headers().add(MessageHeaders.DLQ_TOPIC, MessageHeaders.encode(topic));
    r.headers().add(MessageHeaders.DLQ_PARTITION, MessageHeaders.encode("0"));
    r.headers().add(MessageHeaders.DLQ_OFFSET, MessageHeaders.encode(Long.toString(offset)));
    r.headers().add(MessageHeaders.DLQ_AT, MessageHeaders.encode("2026-05-01T10:00:00Z"));
    return r;
  }

  private static List<ConsumerRecord<String, String>> read(String bootstrap, String topic) {
    return TopicReads.readToEnd(
        bootstrap, List.of(new TopicPartition(topic, 0)), Duration.ofSeconds(10));
  }
}
