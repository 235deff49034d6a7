package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.messaging.outbox.OutboxEvent;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What {@code relay setup-sql} prints works as its comments say, with no superuser beyond the
 * role's creation: the outbox's owner is an ordinary role owning its schema, which is refused the
 * publication until it has CREATE on the database and then makes it; a relay running as the new
 * role streams the outbox.
 */
@ExtendWith(OrdinalStackExtension.class)
class RelaySetupIT {
  @Test
  void anOrdinaryOwnerWithCreateOnTheDatabaseRunsItsPartAndTheRelayStreams(TestNamespace ns)
      throws Exception {
    String schema = ns.schema("owned");
    String ownerRole = ns.name() + "_owner";
    String relayRole = ns.name() + "_relay";
    DatabaseSettings admin =
        new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword());
    DatabaseSettings ownerDb =
        new DatabaseSettings(ns.stack().jdbcUrl(), ownerRole, "owner-pw").withSchema(schema);
    try (HikariDataSource adminPool = admin.pool("setup-admin", 1)) {
      DSLContext superuser = DSL.using(adminPool, SQLDialect.POSTGRES);
      String database = superuser.fetchValue(DSL.field("current_database()", String.class));
      superuser.execute("create role {0} login password 'owner-pw'", DSL.name(ownerRole));
      superuser.execute(
          "create schema {0} authorization {1}", DSL.name(schema), DSL.name(ownerRole));
      RelayConfig config =
          RelayConfig.builder(
                  new DatabaseSettings(ns.stack().jdbcUrl(), relayRole, "relay-pw")
                      .withSchema(schema),
                  ns.stack().kafkaBootstrap(),
                  schema,
                  ns.topicPrefix())
              .slot(ns.name() + "_slot", ns.name() + "_pub", true)
              .createPublication(false)
              .instanceId("setup")
              .build();
      try (HikariDataSource ownerPool = ownerDb.pool("setup-owner", 2)) {
        Migrations.applyOutbox(ownerPool, schema);
        DSLContext owner = DSL.using(ownerPool, SQLDialect.POSTGRES);
        superuser.execute(RelaySetup.role(relayRole, "relay-pw"));

        // the owner's part, without CREATE on the database: refused at the publication
        assertThatThrownBy(
                () ->
                    owner.transaction(
                        c ->
                            RelaySetup.ownerStatements(config, relayRole)
                                .forEach(q -> c.dsl().execute(q))))
            .isInstanceOf(DataAccessException.class)
            .hasMessageContaining("permission denied for database " + database);

        superuser.execute(
            "grant create on database {0} to {1}", DSL.name(database), DSL.name(ownerRole));
        owner.transaction(
            c -> RelaySetup.ownerStatements(config, relayRole).forEach(q -> c.dsl().execute(q)));

        try (OutboxRelay relay = new OutboxRelay(config, new SimpleMeterRegistry()).start()) {
          relay.awaitStreaming(Duration.ofSeconds(60));
          owner.transaction(
              c ->
                  new Outbox(Clock.systemUTC())
                      .append(c.dsl(), new OutboxEvent("order", "o-1", "OrderPlaced", "{}")));
          await().atMost(Duration.ofSeconds(30)).until(() -> relay.relayed() == 1);
        }
      } finally {
        // what each role owns (the schema, the publication) and was granted, then the roles
        for (String role : new String[] {relayRole, ownerRole}) {
          superuser.execute("drop owned by {0} cascade", DSL.name(role));
          superuser.execute("drop role {0}", DSL.name(role));
        }
      }
    }
  }
}
