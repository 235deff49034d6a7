package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.relay.ConnectorConfig;
import dev.ordinal.relay.RelayConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ConnectConfigCommandTest extends CommandTest {
  static final Map<String, String> ENV =
      Map.of(
          "ORDINAL_DB_URL", "jdbc:postgresql://pg:5432/app?sslmode=require",
          "ORDINAL_DB_USER", "ordinal_relay",
          "ORDINAL_DB_PASSWORD", "s3cret");

  /** {@code relay connect-config args} with {@code env} as its environment. */
  int run(Map<String, String> env, String... args) {
    RelayCommand.ConnectConfig command = new RelayCommand.ConnectConfig();
    command.env = env;
    return printingHere(Main.configured(new CommandLine(command), env)).execute(args);
  }

  @Test
  void printsTheConnectorOfTheOneOutboxWithoutThePassword() throws Exception {
    int status =
        run(
            ENV,
            "--schema",
            "billing",
            "--topic-prefix",
            "shop",
            "--replication-factor",
            "1",
            "--min-insync-replicas",
            "1");

    assertThat(status).as(err.toString()).isZero();
    RelayConfig expected =
        RelayConfig.builder(
                new DatabaseSettings(ENV.get("ORDINAL_DB_URL"), "ordinal_relay", "s3cret")
                    .withSchema("billing"),
                "localhost:9092",
                "billing",
                "shop")
            .topicDurability(new Topics.Durability(1, 1))
            .build();
    assertThat(out.toString().strip()).isEqualTo(ConnectorConfig.json(expected));
    assertThat(out.toString()).doesNotContain("s3cret");
    JsonNode config = new ObjectMapper().readTree(out.toString()).path("config");
    assertThat(config.path("slot.name").asText()).isEqualTo("ordinal_billing");
    assertThat(config.path("database.sslmode").asText()).isEqualTo("require");
    assertThat(config.path("transforms.outbox.route.topic.replacement").asText())
        .isEqualTo("shop.${routedByValue}");
    assertThat(config.path("topic.creation.default.partitions").asText()).isEqualTo("3");
    assertThat(config.path("publication.autocreate.mode").asText()).isEqualTo("filtered");

    clear();
    assertThat(run(ENV, "--no-create-publication", "--partitions", "6", "--headers", "both"))
        .isZero();
    config = new ObjectMapper().readTree(out.toString()).path("config");
    assertThat(config.path("publication.autocreate.mode").asText()).isEqualTo("disabled");
    assertThat(config.path("topic.creation.default.partitions").asText()).isEqualTo("6");
    assertThat(config.path("transforms.headers.headers").asText()).isEqualTo("both");
  }

  @Test
  void refusesWithoutADatabaseOrWithTwoOutboxesOrSeveralServers() {
    assertThat(run(Map.of())).isEqualTo(2);
    assertThat(refusal()).contains("ORDINAL_DB_URL");
    assertThat(out.toString()).isEmpty();
    clear();

    assertThat(run(ENV, "--schema", "orders,billing")).isEqualTo(2);
    assertThat(err.toString()).contains("--schema names one outbox here, not [orders, billing]");
    assertThat(out.toString()).isEmpty();
    clear();

    Map<String, String> twoHosts =
        Map.of("ORDINAL_DB_URL", "jdbc:postgresql://pg-a:5432,pg-b:5432/app");
    assertThat(run(twoHosts)).isEqualTo(2);
    assertThat(refusal())
        .isEqualTo(
            "ordinal: ORDINAL_DB_URL names several servers (pg-a:5432,pg-b:5432), but Debezium on"
                + " Kafka Connect connects to one database.hostname: name the primary's address"
                + " alone (or one that moves with it).");
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void helpNamesThePlaceholderNotAPassword() {
    String help =
        new CommandLine(new RelayCommand.ConnectConfig())
            .getUsageMessage(CommandLine.Help.Ansi.OFF)
            .replaceAll("\\s+", "");
    // picocli would put an environment variable's value in place of ${env:...}; it wraps lines
    assertThat(help)
        .contains("database.passwordis${env:ORDINAL_DB_PASSWORD}")
        .contains("POST/connectors")
        .contains("exactly.once.source.support=enabled");
  }
}
