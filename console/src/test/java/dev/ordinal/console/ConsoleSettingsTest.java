package dev.ordinal.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.order.ApiAuth;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The console's settings: the defaults, and one sentence naming the option for a bad value. */
class ConsoleSettingsTest {
  private static final DatabaseSettings DB =
      new DatabaseSettings("jdbc:postgresql://localhost:5432/postgres", "postgres", "");
  private static final KafkaClients KAFKA = KafkaClients.of("localhost:9092");

  @Test
  void defaultsServeThisMachineOnlyOnPort9420() {
    ConsoleSettings s = ConsoleSettings.builder(DB, KAFKA).build();
    assertThat(s.host()).isEqualTo("127.0.0.1");
    assertThat(s.port()).isEqualTo(9420);
    assertThat(s.outboxSchemas()).containsExactly("orders", "billing");
    assertThat(s.billingSchema()).isEqualTo("billing");
    assertThat(s.services()).isEmpty();
    assertThat(s.auth().isNone()).isTrue();
    assertThat(s.allowActions()).isFalse();
  }

  @Test
  void beyondThisMachineTheConsoleNeedsTokens() {
    assertThatThrownBy(
            () -> ConsoleSettings.builder(DB, KAFKA).set(ConsoleSettings.HOST, "0.0.0.0").build())
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "--host 0.0.0.0 serves the console beyond this machine: set --auth jwt (with"
                + " --jwt-issuer, --jwt-audience and --jwks-file or --jwks-url), or keep --host"
                + " 127.0.0.1");
    assertThat(ConsoleSettings.isThisMachine("127.0.0.1")).isTrue();
    assertThat(ConsoleSettings.isThisMachine("::1")).isTrue();
    assertThat(ConsoleSettings.isThisMachine("localhost")).isTrue();
    assertThat(ConsoleSettings.isThisMachine("10.0.0.1")).isFalse();
    assertThat(ConsoleSettings.isThisMachine("console.example")).isFalse();
    ConsoleSettings jwt =
        ConsoleSettings.builder(DB, KAFKA)
            .set(ConsoleSettings.HOST, "0.0.0.0")
            .set(ConsoleSettings.AUTH, "jwt")
            .set(ApiAuth.JWT_ISSUER, "https://issuer.test")
            .set(ApiAuth.JWT_AUDIENCE, "ordinal-console")
            .set(ApiAuth.JWKS_URL, "https://issuer.test/jwks.json")
            .build();
    assertThat(jwt.auth().isNone()).isFalse();
    assertThatThrownBy(
            () -> ConsoleSettings.builder(DB, KAFKA).set(ConsoleSettings.AUTH, "jwt").build())
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("--auth jwt needs --jwt-issuer: the issuer (iss) its tokens name");
    assertThatThrownBy(
            () ->
                ConsoleSettings.builder(DB, KAFKA)
                    .set(ApiAuth.JWT_AUDIENCE, "ordinal-console")
                    .build())
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("--jwt-audience is set but --auth is none: remove it, or use --auth jwt");
  }

  @Test
  void aBadValueIsOneSentenceNamingTheOption() {
    assertThatThrownBy(
            () -> ConsoleSettings.builder(DB, KAFKA).set(ConsoleSettings.PORT, 70000).build())
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("--port must be 0 to 65535, not 70000");
    assertThatThrownBy(
            () ->
                ConsoleSettings.builder(DB, KAFKA)
                    .set(ConsoleSettings.OUTBOX_SCHEMAS, List.of("orders", "Bad-Name"))
                    .build())
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "--outbox-schema must name lower-case PostgreSQL schemas (letters, digits, '_'), not"
                + " Bad-Name");
    assertThatThrownBy(
            () ->
                ConsoleSettings.builder(DB, KAFKA)
                    .set(ConsoleSettings.SERVICES, List.of(URI.create("ftp://x:1")))
                    .build())
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("--service must be http://host:port URLs, not [ftp://x:1]");
  }
}
