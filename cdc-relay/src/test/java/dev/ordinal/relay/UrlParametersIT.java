package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The parameters of the relay's JDBC URL reach its replication connection (Debezium would open it
 * from hostname and port alone): shown with ApplicationName, as sslmode and the others go the same
 * way. The leader lock's session carries the lease as idle_session_timeout.
 */
@ExtendWith(OrdinalStackExtension.class)
class UrlParametersIT {

  @Test
  void theReplicationStreamIsOpenedWithTheUrlsParameters(TestNamespace ns) throws Exception {
    try (RelayFixture fx = RelayFixture.create(ns)) {
      DatabaseSettings db = fx.relayDb;
      DatabaseSettings withName =
          new DatabaseSettings(
              db.jdbcUrl() + "&ApplicationName=ordinal-url-check", db.user(), db.password());
      RelayConfig config =
          RelayConfig.builder(withName, ns.stack().kafkaBootstrap(), ns.schema(), ns.topicPrefix())
              .slot(fx.slot(), ns.name() + "_pub", false)
              .createPublication(false)
              .instanceId("url")
              .leaderLease(Duration.ofSeconds(7))
              .build();
      try (OutboxRelay relay = new OutboxRelay(config, new SimpleMeterRegistry()).start()) {
        relay.awaitStreaming(Duration.ofSeconds(60));
        String streamApp =
            org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(
                    () ->
                        fx.owner
                            .select(DSL.field("a.application_name", String.class))
                            .from(DSL.table("pg_replication_slots").as("s"))
                            .join(DSL.table("pg_stat_activity").as("a"))
                            .on(DSL.field("a.pid").eq(DSL.field("s.active_pid")))
                            .where(DSL.field("s.slot_name", String.class).eq(fx.slot()))
                            .fetchOne(0, String.class),
                    name -> name != null);
        assertThat(streamApp).isEqualTo("ordinal-url-check");
        // the lock's session: the URL names it too, and it carries the lease
        assertThat(
                fx.owner
                    .select(DSL.count())
                    .from(DSL.table("pg_locks").as("l"))
                    .join(DSL.table("pg_stat_activity").as("a"))
                    .on(DSL.field("a.pid").eq(DSL.field("l.pid")))
                    .where(DSL.field("l.locktype", String.class).eq("advisory"))
                    .and(DSL.field("a.application_name", String.class).eq("ordinal-url-check"))
                    .fetchOne(0, Integer.class))
            .isEqualTo(1);
      }
    }
  }
}
