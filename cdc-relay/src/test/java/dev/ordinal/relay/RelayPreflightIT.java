package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.runtime.Health;
import dev.ordinal.runtime.ManagementSettings;
import dev.ordinal.runtime.ServerHealth;
import dev.ordinal.runtime.ServerUnavailableException;
import dev.ordinal.runtime.ServiceStoppedException;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * At start a relay waits for a server that does not answer (and says so, naming the setting), while
 * a configuration that is wrong — {@code wal_level}, a slot or publication that serves another
 * schema's outbox — ends the start at once with one sentence that names the setting to fix. The
 * password is never printed.
 */
@ExtendWith(OrdinalStackExtension.class)
class RelayPreflightIT {
  static final String SECRET = "s3cret-never-printed";

  @TempDir Path dir;

  @Test
  void aDatabaseThatDoesNotAnswerIsWaitedForAndNamedWithItsSetting(TestNamespace ns)
      throws Exception {
    int closedPort = closedPort();
    DatabaseSettings db =
        new DatabaseSettings(
            "jdbc:postgresql://localhost:" + closedPort + "/postgres", "postgres", SECRET);

    // the relay itself refuses to start on it, with the sentence the runtime shows while waiting
    ServerUnavailableException e =
        catchThrowableOfType(
            ServerUnavailableException.class,
            () -> newRelay(db, ns.stack().kafkaBootstrap(), ns).start());
    assertThat(e).isNotNull();
    assertOneSentenceWithoutSecret(e.getMessage());
    assertThat(e.getMessage()).contains("ORDINAL_DB_URL").contains("localhost:" + closedPort);

    ServerHealth postgres = waitsFor(db, ns.stack().kafkaBootstrap(), ns, "postgresql");
    assertThat(postgres.setting()).isEqualTo("ORDINAL_DB_URL");
    assertThat(postgres.address()).contains("localhost:" + closedPort);
    assertThat(postgres.lastError()).contains("localhost:" + closedPort).doesNotContain(SECRET);
  }

  @Test
  void aBrokerThatDoesNotAnswerIsWaitedForAndNamedWithItsSetting(TestNamespace ns)
      throws Exception {
    String bootstrap = "localhost:" + closedPort();
    ServerHealth kafka = waitsFor(settings(ns), bootstrap, ns, "kafka");
    assertThat(kafka.setting()).isEqualTo("ORDINAL_KAFKA_BOOTSTRAP");
    assertThat(kafka.lastError()).contains("ORDINAL_KAFKA_BOOTSTRAP").contains(bootstrap);
  }

  @Test
  void walLevelNotLogicalEndsTheStartAtOnceNamingWalLevel(TestNamespace ns) throws IOException {
    try (EmbeddedPostgres replicaOnly = RelayFixture.replicaOnly(dir.resolve("pg-replica"))) {
      DatabaseSettings db =
          new DatabaseSettings(
              "jdbc:postgresql://localhost:" + replicaOnly.getPort() + "/postgres",
              "postgres",
              SECRET);
      ConfigurationException e =
          catchThrowableOfType(
              ConfigurationException.class,
              () ->
                  RelayApp.start(
                      RelaySettings.builder(db, ns.stack().kafkaBootstrap())
                          .schemas(List.of(ns.schema()))
                          .management(ManagementSettings.off())
                          .build()));
      assertThat(e).isNotNull();
      assertOneSentenceWithoutSecret(e.getMessage());
      assertThat(e.getMessage()).contains("wal_level=replica").contains("wal_level=logical");
    }
  }

  @Test
  void aMissingOutboxIsRefusedByTheRelayAndWaitedForByItsRuntime(TestNamespace ns)
      throws Exception {
    DatabaseSettings db = settingsAsOwner(ns);
    String schema = ns.schema("late");
    ConfigurationException e =
        catchThrowableOfType(
            ConfigurationException.class,
            () -> newRelay(db, ns.stack().kafkaBootstrap(), ns, schema).start());
    assertThat(e).isNotNull();
    assertThat(e.getMessage())
        .contains(schema + ".outbox")
        .contains("grant SELECT")
        .doesNotContain("\n");

    // a relay deployed before the service that owns the outbox: it waits, then streams
    try (RelayApp app =
        new RelayApp(appSettings(db, ns.stack().kafkaBootstrap(), ns, schema).build())) {
      CompletableFuture<RelayApp> starting = CompletableFuture.supplyAsync(app::start);
      await()
          .during(Duration.ofSeconds(2))
          .atMost(Duration.ofSeconds(5))
          .until(() -> !starting.isDone() && app.health().phase() == Health.Phase.STARTING);
      Migrations.applyOutbox(owner(ns), schema);
      starting.get(60, TimeUnit.SECONDS);
      app.relays().get(0).awaitStreaming(Duration.ofSeconds(60));
      await().atMost(Duration.ofSeconds(10)).until(() -> app.health().ready());
    } finally {
      dropSlot(ns, RelayConfig.defaultName(schema));
    }
  }

  @Test
  void aSlotThatServesAnotherSchemasOutboxIsRefusedNamingBoth(TestNamespace ns) throws Exception {
    DatabaseSettings db = settingsAsOwner(ns);
    String first = ns.schema("first");
    String second = ns.schema("second");
    String slot = ns.name() + "_shared";
    Migrations.applyOutbox(owner(ns), first);
    Migrations.applyOutbox(owner(ns), second);
    try {
      // the first outbox's relay streams once from the slot: its position is stored beside it
      try (RelayApp app =
          RelayApp.start(
              appSettings(db, ns.stack().kafkaBootstrap(), ns, first)
                  .slot(slot, ns.name() + "_pub_first")
                  .build())) {
        app.relays().get(0).awaitStreaming(Duration.ofSeconds(60));
      }
      ConfigurationException e =
          refused(
              appSettings(db, ns.stack().kafkaBootstrap(), ns, second)
                  .slot(slot, ns.name() + "_pub_second")
                  .build());
      assertThat(e).isNotNull();
      assertThat(e.getMessage())
          .isEqualTo(
              "Slot "
                  + slot
                  + " already serves the outbox of schema "
                  + first
                  + " (its position is in "
                  + first
                  + "."
                  + slot
                  + "_offsets), so this relay of "
                  + second
                  + ".outbox would lose events: give it a slot of its own with --slot (the"
                  + " default is ordinal_"
                  + second
                  + ").");

      ConfigurationException pub =
          refused(
              appSettings(db, ns.stack().kafkaBootstrap(), ns, second)
                  .slot(ns.name() + "_own", ns.name() + "_pub_first")
                  .build());
      assertThat(pub).isNotNull();
      assertThat(pub.getMessage())
          .startsWith(
              "Publication "
                  + ns.name()
                  + "_pub_first publishes "
                  + first
                  + ".outbox, not "
                  + second
                  + ".outbox");
    } finally {
      dropSlot(ns, slot);
    }
  }

  /** Starts a relay app on servers that do not answer: it waits, and health says what for. */
  private ServerHealth waitsFor(
      DatabaseSettings db, String bootstrap, TestNamespace ns, String server) throws Exception {
    try (RelayApp app = new RelayApp(appSettings(db, bootstrap, ns, ns.schema()).build())) {
      CompletableFuture<RelayApp> starting = CompletableFuture.supplyAsync(app::start);
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  app.health().servers().stream()
                      .anyMatch(
                          s ->
                              s.name().equals(server)
                                  && !s.up()
                                  && s.lastError() != null
                                  && s.lastError().contains(s.setting())));
      Health h = app.health();
      assertThat(starting).as("still waiting, not failed").isNotDone();
      assertThat(h.phase()).isEqualTo(Health.Phase.STARTING);
      assertThat(h.ready()).isFalse();
      app.requestStop();
      ExecutionException stopped =
          catchThrowableOfType(ExecutionException.class, () -> starting.get(20, TimeUnit.SECONDS));
      assertThat(stopped.getCause()).isInstanceOf(ServiceStoppedException.class);
      List<ServerHealth> servers = h.servers();
      return servers.stream().filter(s -> s.name().equals(server)).findFirst().orElseThrow();
    }
  }

  /** A relay app of {@code schema}'s outbox with the namespace's topic prefix, no management. */
  private static RelaySettings.Builder appSettings(
      DatabaseSettings db, String bootstrap, TestNamespace ns, String schema) {
    return RelaySettings.builder(db, bootstrap)
        .schemas(List.of(schema))
        .topicPrefix(ns.topicPrefix())
        .management(ManagementSettings.off());
  }

  /** What starting a relay app with {@code settings} throws, null when it starts. */
  private static ConfigurationException refused(RelaySettings settings) {
    return catchThrowableOfType(ConfigurationException.class, () -> RelayApp.start(settings));
  }

  private static OutboxRelay newRelay(DatabaseSettings db, String bootstrap, TestNamespace ns) {
    return newRelay(db, bootstrap, ns, ns.schema());
  }

  private static OutboxRelay newRelay(
      DatabaseSettings db, String bootstrap, TestNamespace ns, String schema) {
    return new OutboxRelay(
        RelayConfig.of(db.withSchema(schema), bootstrap, schema, ns.topicPrefix()),
        new SimpleMeterRegistry());
  }

  private static DatabaseSettings settings(TestNamespace ns) {
    return new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), SECRET);
  }

  private static DatabaseSettings settingsAsOwner(TestNamespace ns) {
    return new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword());
  }

  private static DataSource owner(TestNamespace ns) {
    return ns.dataSource();
  }

  private static void dropSlot(TestNamespace ns, String slot) {
    org.jooq
        .impl
        .DSL
        .using(ns.dataSource(), org.jooq.SQLDialect.POSTGRES)
        .select(org.jooq.impl.DSL.field("pg_drop_replication_slot(slot_name)"))
        .from(org.jooq.impl.DSL.table("pg_replication_slots"))
        .where(org.jooq.impl.DSL.field("slot_name", String.class).eq(slot))
        .and(org.jooq.impl.DSL.field("active", Boolean.class).isFalse())
        .fetch();
  }

  private static void assertOneSentenceWithoutSecret(String message) {
    assertThat(message).doesNotContain(SECRET).doesNotContain("\n");
    assertThat(message.split("\\. ")).hasSize(1);
  }

  private static int closedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
