package dev.ordinal.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ordinal.messaging.ConfigurationException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KafkaClientsTest {
  private static final String SOURCE = "/etc/ordinal/kafka.properties (ORDINAL_KAFKA_CONFIG)";
  private static final String JAAS =
      "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"billing\""
          + " password=\"s3cret-pw\";";

  @TempDir Path dir;

  @Test
  void theUsersPropertiesComeFirstThenTheSitesThenTheServersAndClientId() {
    KafkaClients clients =
        KafkaClients.of(
                "kafka1:9092,kafka2:9092",
                Map.of(
                    "security.protocol", "SASL_SSL",
                    "request.timeout.ms", "60000",
                    "acks", "all"),
                SOURCE)
            .forService("relay", "r1");

    Map<String, Object> p =
        clients.producerProperties(
            "outbox",
            Map.of(
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                true,
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
                10_000));

    assertThat(p)
        .containsOnly(
            Map.entry("security.protocol", "SASL_SSL"),
            Map.entry("request.timeout.ms", 10_000),
            Map.entry("acks", "all"),
            Map.entry("enable.idempotence", true),
            Map.entry("bootstrap.servers", "kafka1:9092,kafka2:9092"),
            Map.entry("client.id", "ordinal-relay-r1-outbox"));
  }

  @ParameterizedTest
  @CsvSource({
    "acks, 1, all",
    "acks, 0, all",
    "enable.idempotence, false, true",
    "isolation.level, read_uncommitted, read_committed",
    "enable.auto.commit, true, false",
    "auto.offset.reset, latest, earliest"
  })
  void aFileThatWeakensAGuaranteeIsRefusedNamingTheKeyTheFileAndTheValueNeeded(
      String key, String value, String required) {
    assertThatThrownBy(() -> KafkaClients.of("kafka1:9092", Map.of(key, value), SOURCE))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "%s sets %s=%s, but Ordinal's clients need %s=%s: remove the key or set it to %s.",
            SOURCE, key, value, key, required, required);
  }

  @Test
  void aGuaranteeGivenAsKafkaSpellsItIsAccepted() {
    KafkaClients clients =
        KafkaClients.of(
            "kafka1:9092",
            Map.of("acks", "-1", "enable.idempotence", "TRUE", "isolation.level", "read_committed"),
            SOURCE);

    assertThat(clients.properties()).hasSize(3);
  }

  @Test
  void whatEachClientSetsItselfIsRefused() {
    assertThatThrownBy(
            () -> KafkaClients.of("kafka1:9092", Map.of("bootstrap.servers", "other:9092"), SOURCE))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            SOURCE
                + " sets bootstrap.servers, which Ordinal sets for each client itself from"
                + " ORDINAL_KAFKA_BOOTSTRAP: remove bootstrap.servers from it.");
    assertThatThrownBy(() -> KafkaClients.of("kafka1:9092", Map.of("group.id", "mine"), SOURCE))
        .hasMessage(
            SOURCE
                + " sets group.id, which Ordinal sets for each client itself: remove group.id"
                + " from it.");
  }

  @Test
  void secretsAreHiddenInToStringAndOtherKeysShown() {
    Map<String, String> props =
        Map.of(
            "security.protocol", "SASL_SSL",
            "sasl.mechanism", "SCRAM-SHA-512",
            "sasl.jaas.config", JAAS,
            "ssl.keystore.password", "ks-pw",
            "ssl.key.password", "key-pw",
            "ssl.truststore.password", "ts-pw",
            "producer.ssl.truststore.password", "streams-ts-pw",
            "sasl.oauthbearer.client.credentials.client.secret", "oauth-secret");

    String shown = KafkaClients.of("kafka1:9092", props, SOURCE).forService("lag", null).toString();

    assertThat(shown)
        .isEqualTo(
            "KafkaClients[bootstrap.servers=kafka1:9092, client.id=ordinal-lag-<purpose>, from "
                + SOURCE
                + ": producer.ssl.truststore.password=[hidden],"
                + " sasl.jaas.config=[hidden], sasl.mechanism=SCRAM-SHA-512,"
                + " sasl.oauthbearer.client.credentials.client.secret=[hidden],"
                + " security.protocol=SASL_SSL, ssl.key.password=[hidden],"
                + " ssl.keystore.password=[hidden], ssl.truststore.password=[hidden]]")
        .doesNotContain("s3cret-pw", "ks-pw", "key-pw", "ts-pw", "oauth-secret");
  }

  @Test
  void everyPasswordTypedKeyOfKafkasClientsIsSecret() {
    for (var def :
        new org.apache.kafka.common.config.ConfigDef[] {
          ProducerConfig.configDef(), ConsumerConfig.configDef()
        }) {
      def.configKeys()
          .forEach(
              (name, key) -> {
                if (key.type == org.apache.kafka.common.config.ConfigDef.Type.PASSWORD) {
                  assertThat(KafkaClients.isSecret(name)).as(name).isTrue();
                }
              });
    }
    assertThat(KafkaClients.isSecret("sasl.jaas.config")).isTrue();
    assertThat(KafkaClients.isSecret("security.protocol")).isFalse();
    assertThat(KafkaClients.isSecret("ssl.truststore.location")).isFalse();
  }

  @Test
  void clientIdsFollowOneConvention() {
    KafkaClients plain = KafkaClients.of("kafka1:9092");
    assertThat(plain.clientId("lag")).isEqualTo("ordinal-lag");
    assertThat(plain.forService("billing", "billing-7").clientId("inbox-billing"))
        .isEqualTo("ordinal-billing-billing-7-inbox-billing");
    assertThat(plain.forService("monitor", null).clientId("streams"))
        .isEqualTo("ordinal-monitor-streams");
    assertThat(plain.forService("relay", "r1").adminProperties("health", Map.of()))
        .containsEntry("client.id", "ordinal-relay-r1-health")
        .containsEntry("bootstrap.servers", "kafka1:9092");
  }

  @Test
  void aFileIsReadAndItsPropertiesKept() throws IOException {
    Path file = dir.resolve("client.properties");
    Files.writeString(
        file, "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\nacks = all  \n");

    KafkaClients clients = KafkaClients.fromFile("kafka1:9092", file, "--command-config");

    assertThat(clients.properties())
        .containsOnly(
            Map.entry("security.protocol", "SASL_PLAINTEXT"),
            Map.entry("sasl.mechanism", "SCRAM-SHA-512"),
            Map.entry("acks", "all"));
    assertThat(clients.source()).isEqualTo(file + " (--command-config)");
  }

  @Test
  void aMissingFileIsOneSentenceNamingTheFileAndTheSetting() {
    Path missing = dir.resolve("none.properties");

    assertThatThrownBy(() -> KafkaClients.fromFile("kafka1:9092", missing, "--command-config"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "The Kafka client properties file "
                + missing
                + " (--command-config) does not exist; fix --command-config.");
  }

  @Test
  void aFileProviderResolvesTheJaasConfigWhenTheClientIsMade() throws IOException {
    Path secrets = dir.resolve("secrets.properties");
    Files.writeString(secrets, "jaas=" + JAAS.replace("\"", "\\\"") + "\n");
    Map<String, String> props =
        Map.of(
            "config.providers", "file",
            "config.providers.file.class",
                "org.apache.kafka.common.config.provider.FileConfigProvider",
            "security.protocol", "SASL_PLAINTEXT",
            "sasl.mechanism", "SCRAM-SHA-512",
            "sasl.jaas.config", "${file:" + secrets + ":jaas}");
    KafkaClients clients = KafkaClients.of("kafka1:9092", props, SOURCE);

    ProducerConfig config =
        new ProducerConfig(
            clients.producerProperties(
                "test",
                Map.of(
                    ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                    ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class)));

    assertThat(config.getPassword(SaslConfigs.SASL_JAAS_CONFIG).value()).isEqualTo(JAAS);
    assertThat(config.getPassword(SaslConfigs.SASL_JAAS_CONFIG).toString()).isEqualTo("[hidden]");
    assertThat(clients.toString())
        .doesNotContain("s3cret-pw")
        .contains("sasl.jaas.config=[hidden]");
  }

  @Test
  void anEnvironmentProviderResolvesAVariableWhenTheClientIsMade() {
    String path = System.getenv("PATH");
    Map<String, String> props =
        Map.of(
            "config.providers", "env",
            "config.providers.env.class",
                "org.apache.kafka.common.config.provider.EnvVarConfigProvider",
            "sasl.jaas.config", "${env:PATH}");

    ProducerConfig config =
        new ProducerConfig(
            KafkaClients.of("kafka1:9092", props, SOURCE)
                .producerProperties(
                    "test",
                    Map.of(
                        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class)));

    assertThat(config.getPassword(SaslConfigs.SASL_JAAS_CONFIG).value()).isEqualTo(path);
  }
}
