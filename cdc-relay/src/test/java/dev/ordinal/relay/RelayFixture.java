package dev.ordinal.relay;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.testkit.TestNamespace;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * An outbox in the test class's schema, owned by the stack's admin, and a least-privilege relay
 * role made by {@link RelaySetup} (LOGIN REPLICATION, schema usage, SELECT on the outbox, its
 * offsets table; the publication made by the owner). Relays in these tests run as that role.
 */
final class RelayFixture implements AutoCloseable {
  final TestNamespace ns;
  final DatabaseSettings ownerDb;
  final DatabaseSettings relayDb;
  final HikariDataSource ownerPool;
  final DSLContext owner;
  final String role;
  final String password;

  private RelayFixture(TestNamespace ns) {
    this.ns = ns;
    this.ownerDb =
        new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword())
            .withSchema(ns.schema());
    this.ownerPool = ownerDb.pool("owner-" + ns.name(), 12);
    Migrations.applyOutbox(ownerPool, ns.schema());
    this.owner = DSL.using(ownerPool, SQLDialect.POSTGRES);
    this.role = ns.name() + "_relay";
    this.password = "relay-" + UUID.randomUUID();
    RelaySetup.apply(owner, config("setup").build(), role, password);
    this.relayDb = new DatabaseSettings(ownerDb.jdbcUrl(), role, password);
  }

  static RelayFixture create(TestNamespace ns) {
    return new RelayFixture(ns);
  }

  String slot() {
    return ns.name() + "_slot";
  }

  String topic() {
    return ns.topic("order");
  }

  /** The relay as the least-privilege role, fast enough for tests. */
  RelayConfig.Builder config(String instanceId) {
    return RelayConfig.builder(
            relayDb == null ? ownerDb : relayDb,
            ns.stack().kafkaBootstrap(),
            ns.schema(),
            ns.topicPrefix())
        .slot(slot(), ns.name() + "_pub", false)
        .createPublication(false)
        .instanceId(instanceId)
        .heartbeatInterval(java.time.Duration.ofSeconds(1))
        .leaderRetryInterval(java.time.Duration.ofMillis(500));
  }

  /** Drops the slot once no relay streams from it, so it holds no WAL after the test. */
  @Override
  public void close() {
    try {
      owner
          .select(DSL.field("pg_drop_replication_slot(slot_name)"))
          .from(DSL.table("pg_replication_slots"))
          .where(DSL.field("slot_name", String.class).eq(slot()))
          .and(DSL.field("active", Boolean.class).isFalse())
          .fetch();
    } finally {
      ownerPool.close();
    }
  }
}
