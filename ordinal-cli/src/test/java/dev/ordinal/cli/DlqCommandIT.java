package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.contracts.Channel;
import dev.ordinal.contracts.EventCodec;
import dev.ordinal.contracts.EventType;
import dev.ordinal.contracts.OrderPlacedV1;
import dev.ordinal.messaging.inbox.InboxConsumerConfig;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestKafka;
import dev.ordinal.testkit.TestNamespace;
import dev.ordinal.testkit.TopicReads;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
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

    assertThat(
            dlq(
                ns,
                "redrive",
                "--topic",
                dlq,
                "--where",
                "error~=CURRENCY",
                "--schema",
                ns.schema()))
        .isZero();
    assertThat(out.toString())
        .contains("Re-drove 1 dead letter(s) of " + dlq + " (error~=CURRENCY)")
        .contains("0@0 -> " + topic + " 0@0  message-id m-1");
    assertThat(dlq(ns, "redrive", "--topic", dlq, "--schema", ns.schema())).isZero();
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
                + "' is not a dead-letter topic: name one as <topic>.dlq.");
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
