package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.billing.BillingApp;
import dev.ordinal.billing.BillingSettings;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.inbox.InboxConsumerConfig;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.monitor.MonitorApp;
import dev.ordinal.monitor.MonitorSettings;
import dev.ordinal.runtime.ManagementSettings;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestKafka;
import dev.ordinal.testkit.TestNamespace;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The user's Kafka client properties file reaches every client the commands and services make:
 * admin clients, consumers, producers and Kafka Streams' clients. The file names a metrics reporter
 * ({@code metric.reporters}), which Kafka configures in each client it makes and which records the
 * client's id; a client that did not get the file is not recorded.
 */
@ExtendWith(OrdinalStackExtension.class)
class KafkaClientPropertiesIT extends CommandTest {
  @TempDir Path dir;

  @BeforeEach
  void forget() {
    RecordingReporter.forget();
  }

  private Path clientProperties() throws IOException {
    Path file = dir.resolve("client.properties");
    Files.writeString(
        file,
        "metric.reporters="
            + RecordingReporter.class.getName()
            + "\nclient.dns.lookup=use_all_dns_ips\n");
    return file;
  }

  @Test
  void lagsAdminClientAndRecordReaderGetTheCommandConfig(TestNamespace ns) throws Exception {
    String topic = ns.topic("lag");
    String group = ns.group("lag");
    Topics.ensure(ns.stack().kafkaBootstrap(), topic, 1);
    try (KafkaProducer<String, String> producer = TestKafka.producer(ns.stack().kafkaBootstrap())) {
      producer.send(new ProducerRecord<>(topic, 0, "k", "v0")).get();
      producer.send(new ProducerRecord<>(topic, 0, "k", "v1")).get();
    }
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ns.stack().kafkaBootstrap()))) {
      admin
          .alterConsumerGroupOffsets(
              group, Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(1)))
          .all()
          .get();
    }
    LagCommand lag = new LagCommand();
    lag.env = ns.serverEnvironment();

    int status = execute(lag, "--group", group, "--command-config", clientProperties().toString());

    assertThat(status).as(err.toString()).isZero();
    assertThat(RecordingReporter.clientIds())
        .containsExactlyInAnyOrder("ordinal-check", "ordinal-lag", "ordinal-lag-records");
  }

  @Test
  void aRedriveReachesKafkaWithTheCommandConfigForEachOfItsClients(TestNamespace ns)
      throws Exception {
    String topic = ns.topic("order");
    String dlq = InboxConsumerConfig.deadLetterTopic(topic);
    Topics.ensure(ns.stack().kafkaBootstrap(), topic, 1);
    Topics.ensure(ns.stack().kafkaBootstrap(), dlq, 1);
    try (KafkaProducer<String, String> producer = TestKafka.producer(ns.stack().kafkaBootstrap())) {
      ProducerRecord<String, String> r = new ProducerRecord<>(dlq, "k", "{}");
      r.headers().add(MessageHeaders.MESSAGE_ID, MessageHeaders.encode("m-1"));
      r.headers().add(MessageHeaders.DLQ_TOPIC, MessageHeaders.encode(topic));
      r.headers().add(MessageHeaders.DLQ_PARTITION, MessageHeaders.encode("0"));
      producer.send(r);
      producer.flush();
    }
    CommandLine cli = printingHere(new CommandLine(new DlqCommand()));
    DlqCommand.Selection selection =
        ((DlqCommand.Subcommand) cli.getSubcommands().get("redrive").getCommand()).selection;
    selection.env = ns.serverEnvironment();

    int status =
        cli.execute(
            "redrive",
            "--execute",
            "--topic",
            dlq,
            "--schema",
            ns.schema(),
            "--command-config",
            clientProperties().toString());

    assertThat(status).as(err.toString()).isZero();
    assertThat(out.toString()).contains("Re-drove 1 dead letter(s) of " + dlq);
    assertThat(RecordingReporter.clientIds())
        .containsExactlyInAnyOrder(
            "ordinal-check", "ordinal-dlq", "ordinal-dlq-reader", "ordinal-dlq-redrive");
  }

  @Test
  void billingsConsumerDeadLetterProducerAndAdminClientsGetTheFile(TestNamespace ns)
      throws Exception {
    KafkaClients kafka =
        KafkaClients.fromFile(
            ns.stack().kafkaBootstrap(), clientProperties(), KafkaClients.FILE_SETTING);
    BillingSettings settings =
        BillingSettings.builder(
                new DatabaseSettings(
                    ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword()),
                kafka)
            .schema(ns.schema("billing"))
            .topicPrefix(ns.topicPrefix())
            .group(ns.group("billing"))
            .instanceId("b1")
            .allowShortRetention(true)
            .management(ManagementSettings.off())
            .build();

    try (BillingApp billing = BillingApp.start(settings)) {
      assertThat(billing.awaitAssignment(Duration.ofSeconds(30))).isTrue();

      assertThat(RecordingReporter.clientIds())
          .containsExactlyInAnyOrder(
              "ordinal-billing-b1-check",
              "ordinal-billing-b1-health",
              "ordinal-billing-b1-topics",
              "ordinal-billing-b1-retention-check",
              "ordinal-billing-b1-inbox-billing",
              "ordinal-billing-b1-dlq-billing");
    }
  }

  @Test
  void theMonitorsKafkaStreamsClientsGetTheFile(TestNamespace ns) throws Exception {
    KafkaClients kafka =
        KafkaClients.fromFile(
            ns.stack().kafkaBootstrap(), clientProperties(), KafkaClients.FILE_SETTING);
    MonitorSettings settings =
        MonitorSettings.builder(kafka)
            .topicPrefix(ns.topicPrefix())
            .kafka(Map.of(StreamsConfig.STATE_DIR_CONFIG, dir.resolve("state").toString()))
            .management(ManagementSettings.off())
            .build();

    try (MonitorApp monitor = MonitorApp.start(settings)) {
      // RUNNING: its stream thread's consumer and producer are made and have their partitions
      await().atMost(Duration.ofSeconds(60)).until(() -> monitor.health().ready());

      assertThat(RecordingReporter.clientIds())
          .contains(
              "ordinal-monitor-check",
              "ordinal-monitor-health",
              "ordinal-monitor-topics",
              "ordinal-monitor-streams-admin")
          .anyMatch(id -> id.matches("ordinal-monitor-streams-StreamThread-\\d+-consumer"))
          .anyMatch(id -> id.matches("ordinal-monitor-streams-StreamThread-\\d+-producer"))
          .allMatch(id -> id.startsWith("ordinal-monitor-"));
    }
  }
}
