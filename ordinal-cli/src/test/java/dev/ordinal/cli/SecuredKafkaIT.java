package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.lab.devstack.SecuredKafka;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.monitor.MonitorApp;
import dev.ordinal.monitor.MonitorSettings;
import dev.ordinal.runtime.ManagementSettings;
import dev.ordinal.testkit.tls.TestCertificates;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Against a broker whose only listener is SASL_SSL (a server certificate signed by a CA the test
 * made, SCRAM-SHA-512, no ACL allowing everyone), {@code ./ordinal lag} and the monitor's Kafka
 * Streams connect only with a client properties file: without one, with a wrong password, or
 * trusting another CA, the command ends with one sentence and exit status 2; a user no ACL allows
 * logs in and is refused the group.
 */
class SecuredKafkaIT extends CommandTest {
  static final String TOPIC = "secured.order";
  static final String GROUP = "secured-billing";

  @TempDir static Path dir;
  static SecuredKafka kafka;

  @BeforeAll
  static void aSecuredBrokerWithAGroupOneRecordBehind() throws Exception {
    kafka =
        SecuredKafka.start(
            dir.resolve("broker"), TestCertificates.create(dir.resolve("ca")).forKafka());
    try (Admin a = kafka.admin()) {
      a.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
      a.alterConsumerGroupOffsets(
              GROUP, Map.of(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(0)))
          .all()
          .get();
    }
  }

  @AfterAll
  static void stop() {
    if (kafka != null) {
      kafka.close();
    }
  }

  private static Path file(String name, Map<String, Object> properties) throws IOException {
    Properties p = new Properties();
    properties.forEach((k, v) -> p.setProperty(k, v.toString()));
    Path f = dir.resolve(name);
    try (Writer w = Files.newBufferedWriter(f)) {
      p.store(w, null);
    }
    return f;
  }

  private int lag(String... args) {
    clear();
    LagCommand command = new LagCommand();
    command.env = Map.of("ORDINAL_KAFKA_BOOTSTRAP", kafka.bootstrapServers());
    command.kafkaTimeout = Duration.ofSeconds(3);
    return execute(command, args);
  }

  @Test
  void lagReadsTheSecuredClusterWithTheCommandConfig() throws IOException {
    Path file = file("admin.properties", kafka.superUserProperties());

    assertThat(lag("--group", GROUP, "--command-config", file.toString()))
        .as(err.toString())
        .isZero();
    assertThat(out.toString()).contains(GROUP).contains(TOPIC);
  }

  @Test
  void withoutClientPropertiesLagGetsNoAnswerAndSaysSoInOneSentence() {
    assertThat(lag("--group", GROUP)).isEqualTo(2);
    assertThat(refusal())
        .isEqualTo(
            "ordinal: No Kafka broker answered at "
                + kafka.bootstrapServers()
                + " (ORDINAL_KAFKA_BOOTSTRAP) within 3 s; check that the broker runs, the address"
                + " is right and the Kafka client properties (none were given:"
                + " ORDINAL_KAFKA_CONFIG, or --command-config for an operator command, names a"
                + " file of them) match its listener (security.protocol).");
  }

  @Test
  void aWrongPasswordIsRefusedInOneSentenceNamingTheFileAndNotThePassword() throws IOException {
    Map<String, Object> wrong = kafka.wrongPasswordProperties();
    Path file = file("wrong.properties", wrong);

    assertThat(lag("--group", GROUP, "--command-config", file.toString())).isEqualTo(2);
    String refusal = refusal();
    assertThat(refusal)
        .startsWith(
            "ordinal: The Kafka cluster at "
                + kafka.bootstrapServers()
                + " (ORDINAL_KAFKA_BOOTSTRAP) refused this client: ")
        .endsWith("; check the Kafka client properties of " + file + " (--command-config).")
        .doesNotContain(wrong.get("sasl.jaas.config").toString());
  }

  @Test
  void aClientTrustingAnotherCaFailsTheHandshakeInOneSentenceNamingTheTrustStoreAndTheFile()
      throws IOException {
    Path otherCa = TestCertificates.create(dir.resolve("other-ca")).caCertificate();
    Map<String, Object> other = new HashMap<>(kafka.superUserProperties());
    other.put("ssl.truststore.location", otherCa.toString());
    Path file = file("other-ca.properties", other);

    assertThat(lag("--group", GROUP, "--command-config", file.toString())).isEqualTo(2);
    assertThat(refusal())
        .isEqualTo(
            "ordinal: The TLS handshake with the Kafka cluster at "
                + kafka.bootstrapServers()
                + " (ORDINAL_KAFKA_BOOTSTRAP) failed: the broker's certificate is not signed by a"
                + " CA the client trusts (ssl.truststore.location="
                + otherCa
                + "); check the Kafka client properties of "
                + file
                + " (--command-config).");
    assertThat(out.toString() + err.toString())
        .doesNotContain(other.get("sasl.jaas.config").toString());
  }

  @Test
  void aUserNoAclAllowsLogsInButIsRefusedTheGroup() throws Exception {
    Path file = file("nobody.properties", kafka.addUser("nobody"));

    // the login passes and the cluster answers; no ACL allows the group, and no rule allows all
    assertThat(lag("--group", GROUP, "--command-config", file.toString())).isEqualTo(2);
    assertThat(err.toString().lines()).hasSize(1);
    assertThat(err.toString().strip())
        .isEqualTo(
            "ordinal: The Kafka cluster at "
                + kafka.bootstrapServers()
                + " (ORDINAL_KAFKA_BOOTSTRAP) does not allow DESCRIBE on group "
                + GROUP
                + " to the user of the Kafka client properties of "
                + file
                + " (--command-config); grant it that ACL (docs/DEPLOY.md, \"Kafka ACLs\").");
  }

  @Test
  void theMonitorsKafkaStreamsRunsOnTheSecuredClusterWithTheServicesFile() throws IOException {
    Path file = file("monitor.properties", kafka.superUserProperties());
    MonitorSettings settings =
        MonitorSettings.builder(
                KafkaClients.fromFile(kafka.bootstrapServers(), file, KafkaClients.FILE_SETTING))
            .topicPrefix("secured")
            .kafka(Map.of(StreamsConfig.STATE_DIR_CONFIG, dir.resolve("state").toString()))
            .management(ManagementSettings.off())
            .build();

    try (MonitorApp monitor = MonitorApp.start(settings)) {
      await().atMost(Duration.ofSeconds(60)).until(() -> monitor.health().ready());
    }
  }
}
