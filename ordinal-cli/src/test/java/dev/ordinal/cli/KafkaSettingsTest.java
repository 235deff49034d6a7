package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.kafka.KafkaClients;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka client properties file of the settings: {@code ORDINAL_KAFKA_CONFIG} ({@code
 * kafka.config} in the {@code ORDINAL_CONFIG} file) for every command, {@code --command-config}
 * winning over it for the operator commands; a file that cannot be read or that weakens a guarantee
 * is one sentence and exit status 2, before Kafka is asked.
 */
class KafkaSettingsTest extends CommandTest {
  @TempDir Path dir;

  private Path file(String name, String text) throws IOException {
    Path f = dir.resolve(name);
    Files.writeString(f, text);
    return f;
  }

  private int lag(Map<String, String> env, String... args) {
    LagCommand command = new LagCommand();
    command.env = env;
    command.kafkaTimeout = Duration.ofSeconds(1);
    return execute(command, args);
  }

  @Test
  void theVariableNamesTheFileAndCommandConfigWinsOverIt() throws IOException {
    Path services = file("services.properties", "security.protocol=SASL_SSL\n");
    Path operator = file("operator.properties", "security.protocol=SASL_PLAINTEXT\n");
    ServerSettings servers =
        ServerSettings.from(
            Map.of(
                "ORDINAL_KAFKA_BOOTSTRAP",
                "kafka1:9092",
                "ORDINAL_KAFKA_CONFIG",
                services.toString()));

    KafkaClients fromVariable = servers.kafka("billing");
    KafkaClients fromOption = servers.kafka("lag", operator);

    assertThat(fromVariable.bootstrapServers()).isEqualTo("kafka1:9092");
    assertThat(fromVariable.properties())
        .containsExactly(Map.entry("security.protocol", "SASL_SSL"));
    assertThat(fromVariable.source()).isEqualTo(services + " (ORDINAL_KAFKA_CONFIG)");
    assertThat(fromOption.properties())
        .containsExactly(Map.entry("security.protocol", "SASL_PLAINTEXT"));
    assertThat(fromOption.source()).isEqualTo(operator + " (--command-config)");
  }

  @Test
  void kafkaConfigIsAServerKeyOfTheSettingsFile() throws IOException {
    Path client = file("client.properties", "security.protocol=SASL_SSL\n");
    Path settings =
        file("ordinal.properties", "kafka.bootstrap=kafka1:9092\nkafka.config=" + client + "\n");
    Map<String, String> env = Map.of("ORDINAL_CONFIG", settings.toString());

    Settings.checkFile(env, Settings.knownKeys(Main.commandLine(env)));
    KafkaClients clients = ServerSettings.from(env).kafka("monitor");

    assertThat(clients.properties()).containsExactly(Map.entry("security.protocol", "SASL_SSL"));
  }

  @Test
  void noFileMeansNoPropertiesOfTheUsers() {
    KafkaClients clients =
        ServerSettings.from(Map.of("ORDINAL_KAFKA_BOOTSTRAP", "kafka1:9092")).kafka("lag", null);

    assertThat(clients.properties()).isEmpty();
    assertThat(clients.source()).isNull();
  }

  @Test
  void aMissingCommandConfigIsOneSentenceNamingTheFileAndTheOption() {
    Path missing = dir.resolve("missing.properties");

    assertThat(
            lag(
                Map.of("ORDINAL_KAFKA_BOOTSTRAP", "localhost:1"),
                "--command-config",
                missing.toString()))
        .isEqualTo(2);
    assertThat(refusal())
        .isEqualTo(
            "ordinal: The Kafka client properties file "
                + missing
                + " (--command-config) does not exist; fix --command-config.");
  }

  @Test
  void aFileNamedByTheVariableThatWeakensAGuaranteeIsRefusedBeforeKafkaIsAsked()
      throws IOException {
    Path weak = file("weak.properties", "security.protocol=SASL_SSL\nacks=1\n");

    assertThat(
            lag(
                Map.of(
                    "ORDINAL_KAFKA_BOOTSTRAP",
                    "localhost:1",
                    "ORDINAL_KAFKA_CONFIG",
                    weak.toString())))
        .isEqualTo(2);
    assertThat(refusal())
        .isEqualTo(
            "ordinal: "
                + weak
                + " (ORDINAL_KAFKA_CONFIG) sets acks=1, but Ordinal's clients need acks=all: remove"
                + " the key or set it to all.");
  }

  @Test
  void theOperatorCommandsThatTalkToKafkaTakeCommandConfig() {
    var root = Main.commandLine(Map.of());
    assertThat(root.getSubcommands().get("lag").getCommandSpec().findOption("--command-config"))
        .isNotNull();
    assertThat(root.getSubcommands().get("replay").getCommandSpec().findOption("--command-config"))
        .isNotNull();
    for (String dlq : new String[] {"list", "show", "redrive", "discard"}) {
      assertThat(
              root.getSubcommands()
                  .get("dlq")
                  .getSubcommands()
                  .get(dlq)
                  .getCommandSpec()
                  .findOption("--command-config"))
          .as("dlq " + dlq)
          .isNotNull();
    }
    assertThat(
            root.getSubcommands()
                .get("relay")
                .getSubcommands()
                .get("republish")
                .getCommandSpec()
                .findOption("--command-config"))
        .isNotNull();
  }
}
