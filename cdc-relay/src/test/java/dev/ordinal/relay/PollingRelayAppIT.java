package dev.ordinal.relay;

import static dev.ordinal.messaging.db.Tables.OUTBOX;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.messaging.outbox.OutboxEvent;
import dev.ordinal.runtime.LoopHealth;
import dev.ordinal.runtime.LoopState;
import dev.ordinal.runtime.ManagementSettings;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RelayApp} in {@link RelayMode#POLLING} on a PostgreSQL with {@code wal_level=replica}, as
 * a role without REPLICATION: it starts and publishes; when the database refuses its claim (UPDATE
 * revoked) its loop backs off and names the error, and it goes on once the grant is back.
 */
@ExtendWith(OrdinalStackExtension.class)
class PollingRelayAppIT {
  @TempDir Path dir;

  @Test
  void runsWithoutLogicalReplicationOrReplicationRoleAndBacksOffWhileTheDatabaseRefuses(
      TestNamespace ns) throws Exception {
    try (EmbeddedPostgres pg = RelayFixture.replicaOnly(dir.resolve("pg"))) {
      String url = "jdbc:postgresql://localhost:" + pg.getPort() + "/postgres";
      String schema = "shop";
      DatabaseSettings owner = new DatabaseSettings(url, "postgres", "postgres");
      try (HikariDataSource pool = owner.withSchema(schema).pool("owner", 2)) {
        Migrations.applyOutbox(pool, schema);
        DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
        dsl.execute("create role poller login password {0}", DSL.inline("poller-pw"));
        dsl.execute("grant usage on schema {0} to poller", DSL.name(schema));
        dsl.execute("grant select, update on {0} to poller", DSL.name(schema, "outbox"));
        RelaySettings settings =
            RelaySettings.builder(
                    new DatabaseSettings(url, "poller", "poller-pw"), ns.stack().kafkaBootstrap())
                .schemas(List.of(schema))
                .topicPrefix(ns.topicPrefix())
                .instanceId("app")
                .polling(RelayMode.POLLING, Duration.ofMillis(50), 100, Duration.ofSeconds(30))
                .management(ManagementSettings.off())
                .build();
        try (RelayApp app = RelayApp.start(settings)) {
          assertThat(app.pollingRelays()).hasSize(1);
          assertThat(app.relays()).isEmpty();
          append(dsl, "p-1");
          await()
              .atMost(Duration.ofSeconds(30))
              .until(() -> dsl.fetchCount(OUTBOX, OUTBOX.DISPATCHED_AT.isNotNull()) == 1);
          assertThat(loop(app).state()).isEqualTo(LoopState.RUNNING);

          dsl.execute("revoke update on {0} from poller", DSL.name(schema, "outbox"));
          append(dsl, "p-2");
          await()
              .atMost(Duration.ofSeconds(30))
              .until(() -> loop(app).state() == LoopState.BACKING_OFF);
          assertThat(loop(app).lastError()).contains("permission denied");
          assertThat(app.health().ready()).isFalse();

          dsl.execute("grant update on {0} to poller", DSL.name(schema, "outbox"));
          await()
              .atMost(Duration.ofSeconds(30))
              .until(() -> dsl.fetchCount(OUTBOX, OUTBOX.DISPATCHED_AT.isNotNull()) == 2);
          await().atMost(Duration.ofSeconds(10)).until(() -> app.health().ready());
          assertThat(loop(app).restarts()).isPositive();
        }
      }
    }
  }

  private static LoopHealth loop(RelayApp app) {
    List<LoopHealth> loops = app.health().loops();
    assertThat(loops).extracting(LoopHealth::name).containsExactly("polling-relay-shop");
    return loops.get(0);
  }

  private static void append(DSLContext dsl, String aggregate) {
    dsl.transaction(
        c ->
            new Outbox(Clock.systemUTC())
                .append(c.dsl(), new OutboxEvent("parcel", aggregate, "ParcelSent", "{}")));
  }
}
