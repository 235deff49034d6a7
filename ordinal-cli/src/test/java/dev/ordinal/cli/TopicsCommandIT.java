package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestKafka;
import dev.ordinal.testkit.TestNamespace;
import dev.ordinal.testkit.TopicReads;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import picocli.CommandLine;

/**
 * {@code ./ordinal topics copy} against the real broker and PostgreSQL: 30 records over 3
 * partitions, one a second; the copy of a 10-second range holds exactly the 10 records of it, each
 * in its partition with its key, value, headers (message id) and timestamp; a dry run copies and
 * records nothing; bad input is one sentence, exit status 2.
 */
@ExtendWith(OrdinalStackExtension.class)
class TopicsCommandIT extends CommandTest {
  static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

  private int topics(TestNamespace ns, String... args) {
    clear();
    CommandLine cli = new CommandLine(new TopicsCommand());
    TopicsCommand.Copy copy = cli.getSubcommands().get("copy").getCommand();
    copy.env = ns.serverEnvironment();
    copy.user = "ops";
    return printingHere(cli).execute(args);
  }

  @Test
  void theCopyOfATimeRangeHoldsExactlyItsRecordsKeysHeadersAndMessageIdsIntact(TestNamespace ns)
      throws Exception {
    String bootstrap = ns.stack().kafkaBootstrap();
    String source = ns.topic("events");
    String target = ns.topic("events-copy");
    Topics.ensure(bootstrap, source, 3);
    Topics.ensure(bootstrap, target, 3);
    List<ProducerRecord<String, String>> written = new ArrayList<>();
    try (KafkaProducer<String, String> producer = TestKafka.producer(bootstrap)) {
      for (int i = 0; i < 30; i++) {
        ProducerRecord<String, String> r =
            new ProducerRecord<>(
                source, i % 3, T0.plusSeconds(i).toEpochMilli(), "k-" + i, "{\"i\":" + i + "}");
        r.headers().add(MessageHeaders.MESSAGE_ID, ("m-" + i).getBytes(StandardCharsets.UTF_8));
        producer.send(r).get();
        written.add(r);
      }
    }
    String[] range = {
      "copy",
      "--topic",
      source,
      "--to-topic",
      target,
      "--from-datetime",
      T0.plusSeconds(10).toString(),
      "--to-datetime",
      T0.plusSeconds(20).toString(),
      "--schema",
      ns.schema()
    };

    assertThat(topics(ns, range)).as(err.toString()).isZero();
    assertThat(out.toString()).contains("Dry run: would copy 10 offsets of " + source);
    assertThat(read(bootstrap, target)).isEmpty();

    String[] execute = java.util.Arrays.copyOf(range, range.length + 1);
    execute[range.length] = "--execute";
    assertThat(topics(ns, execute)).as(err.toString()).isZero();
    System.out.print("topics copy: " + out);
    assertThat(out.toString()).contains("Copied 10 records, recorded as copy");

    List<ConsumerRecord<String, String>> copied = read(bootstrap, target);
    assertThat(copied).hasSize(10);
    for (ConsumerRecord<String, String> c : copied) {
      int i = Integer.parseInt(c.key().substring(2));
      ProducerRecord<String, String> original = written.get(i);
      assertThat(i).as("in the range").isBetween(10, 19);
      assertThat(c.partition()).isEqualTo(original.partition());
      assertThat(c.timestamp()).isEqualTo(original.timestamp());
      assertThat(c.value()).isEqualTo(original.value());
      assertThat(MessageHeaders.get(c.headers(), MessageHeaders.MESSAGE_ID)).contains("m-" + i);
      assertThat(c.headers().toArray()).hasSize(1);
    }
    assertThat(
            DSL.using(ns.dataSource(), org.jooq.SQLDialect.POSTGRES)
                .fetchCount(
                    DSL.table(DSL.name(ns.schema(), "topic_copy_log")),
                    DSL.field(DSL.name("target_topic")).eq(target)))
        .as("one log row per source partition")
        .isEqualTo(3);

    assertThat(
            topics(
                ns,
                "copy",
                "--topic",
                source,
                "--to-topic",
                source,
                "--from-datetime",
                T0.toString(),
                "--to-datetime",
                T0.plusSeconds(1).toString()))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--to-topic must name another topic than " + source);
    assertThat(read(bootstrap, target)).hasSize(10);
  }

  private static List<ConsumerRecord<String, String>> read(String bootstrap, String topic) {
    List<TopicPartition> partitions = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      partitions.add(new TopicPartition(topic, p));
    }
    return TopicReads.readToEnd(bootstrap, partitions, Duration.ofSeconds(30));
  }
}
