package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.ordinal.infra.junit.OrdinalStackExtension;
import dev.ordinal.infra.junit.TestNamespace;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.DatabaseSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad configuration fails at start with one sentence that names the setting to fix, and never
 * prints the password.
 */
@ExtendWith(OrdinalStackExtension.class)
class RelayPreflightIT {
  static final String SECRET = "s3cret-never-printed";

  @TempDir Path dir;

  @Test
  void unreachableDatabaseNamesTheUrlSetting(TestNamespace ns) throws IOException {
    int closedPort = closedPort();
    DatabaseSettings db =
        new DatabaseSettings(
            "jdbc:postgresql://localhost:" + closedPort + "/postgres", "postgres", SECRET);
    ConfigurationException e = startFails(db, ns.stack().kafkaBootstrap(), ns);
    assertOneSentenceWithoutSecret(e);
    assertThat(e.getMessage()).contains("ORDINAL_DB_URL").contains("localhost:" + closedPort);
  }

  @Test
  void unreachableBrokerNamesTheBootstrapSetting(TestNamespace ns) throws IOException {
    String bootstrap = "localhost:" + closedPort();
    ConfigurationException e = startFails(settings(ns), bootstrap, ns);
    assertOneSentenceWithoutSecret(e);
    assertThat(e.getMessage()).contains("ORDINAL_KAFKA_BOOTSTRAP").contains(bootstrap);
  }

  @Test
  void walLevelNotLogicalNamesWalLevel(TestNamespace ns) throws IOException {
    try (EmbeddedPostgres replicaOnly =
        EmbeddedPostgres.builder()
            .setDataDirectory(dir.resolve("pg-replica"))
            .setCleanDataDirectory(true)
            .setServerConfig("wal_level", "replica")
            .start()) {
      DatabaseSettings db =
          new DatabaseSettings(
              "jdbc:postgresql://localhost:" + replicaOnly.getPort() + "/postgres",
              "postgres",
              SECRET);
      ConfigurationException e = startFails(db, ns.stack().kafkaBootstrap(), ns);
      assertOneSentenceWithoutSecret(e);
      assertThat(e.getMessage()).contains("wal_level=replica").contains("wal_level=logical");
    }
  }

  @Test
  void aMissingOutboxTableNamesTheTableAndTheFix(TestNamespace ns) {
    DatabaseSettings db =
        new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword());
    ConfigurationException e = startFails(db, ns.stack().kafkaBootstrap(), ns);
    assertThat(e).isNotNull();
    assertThat(e.getMessage())
        .contains(ns.schema() + ".outbox")
        .contains("grant SELECT")
        .doesNotContain("\n");
  }

  private ConfigurationException startFails(
      DatabaseSettings db, String bootstrap, TestNamespace ns) {
    OutboxRelay relay =
        new OutboxRelay(
            RelayConfig.of(db, bootstrap, ns.schema(), ns.topicPrefix()),
            new SimpleMeterRegistry());
    try {
      return catchThrowableOfType(ConfigurationException.class, relay::start);
    } finally {
      relay.close();
    }
  }

  private static DatabaseSettings settings(TestNamespace ns) {
    return new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), SECRET);
  }

  private static void assertOneSentenceWithoutSecret(ConfigurationException e) {
    assertThat(e).isNotNull();
    assertThat(e.getMessage()).doesNotContain(SECRET).doesNotContain("\n");
    assertThat(e.getMessage().split("\\. ")).hasSize(1);
  }

  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
