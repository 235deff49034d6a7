package dev.ordinal.order;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.runtime.ManagementSettings;
import dev.ordinal.testkit.Tokens;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What order-service refuses before it waits for any server. */
class OrderServiceAppTest {

  @Test
  void aJwksFileThatCannotBeReadRefusesTheStartBeforePostgresIsWaitedFor(@TempDir Path dir)
      throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0)) {
      closed = s.getLocalPort();
    }
    // nothing listens there: a start that waited for PostgreSQL would not return
    DatabaseSettings nowhere =
        new DatabaseSettings("jdbc:postgresql://127.0.0.1:" + closed + "/postgres", "u", "p");
    Path missing = dir.resolve("jwks.json");
    OrderServiceSettings settings =
        OrderServiceSettings.builder(nowhere)
            .port(0)
            .auth(ApiAuth.jwt(Tokens.ISSUER, Tokens.AUDIENCE, missing))
            .management(ManagementSettings.off())
            .build();
    assertTimeoutPreemptively(
        Duration.ofSeconds(10),
        () ->
            assertThatThrownBy(() -> OrderServiceApp.start(settings))
                .isInstanceOf(ConfigurationException.class)
                .hasMessageStartingWith("--jwks-file " + missing + " cannot be read"));
  }
}
