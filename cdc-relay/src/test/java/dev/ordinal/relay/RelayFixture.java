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
    this.ownerDb = ownerSettings(ns);
    this.ownerPool = ownerDb.pool("owner-" + ns.name(), 12);
    Migrations.applyOutbox(ownerPool, ns.schema());
    this.owner = DSL.using(ownerPool, SQLDialect.POSTGRES);
    this.role = ns.name() + "_relay";
    this.password = "relay-" + UUID.randomUUID();
    RelaySetup.apply(owner, owner, config("setup").build(), role, password);
    this.relayDb = new DatabaseSettings(ownerDb.jdbcUrl(), role, password);
  }

  static RelayFixture create(TestNamespace ns) {
    return new RelayFixture(ns);
  }

  /** A PostgreSQL of its own in {@code dir} with {@code wal_level=replica}: no logical decoding. */
  static io.zonky.test.db.postgres.embedded.EmbeddedPostgres replicaOnly(java.nio.file.Path dir)
      throws java.io.IOException {
    return io.zonky.test.db.postgres.embedded.EmbeddedPostgres.builder()
        .setDataDirectory(dir)
        .setCleanDataDirectory(true)
        .setServerConfig("wal_level", "replica")
        .start();
  }

  /** The stack's admin, on the namespace's schema. */
  static DatabaseSettings ownerSettings(TestNamespace ns) {
    return new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword())
        .withSchema(ns.schema());
  }

  /**
   * A relay as {@code db}'s user on the namespace's slot and a publication it makes, started and
   * streaming (60 s at most).
   */
  static OutboxRelay streaming(TestNamespace ns, DatabaseSettings db) throws InterruptedException {
    OutboxRelay relay =
        new OutboxRelay(
                RelayConfig.builder(db, ns.stack().kafkaBootstrap(), ns.schema(), ns.topicPrefix())
                    .slot(ns.name() + "_slot", ns.name() + "_pub", true)
                    .build(),
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry())
            .start();
    try {
      relay.awaitStreaming(java.time.Duration.ofSeconds(60));
      return relay;
    } catch (InterruptedException | RuntimeException | Error e) {
      relay.close();
      throw e;
    }
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

  /** True when the slot exists. */
  boolean slotExists() {
    return owner.fetchExists(slotRow());
  }

  /** Waits until the slot is streamed from ({@code active}) or free (60 s at most). */
  void awaitSlot(boolean active) {
    org.awaitility.Awaitility.await("slot " + slot() + (active ? " active" : " free"))
        .atMost(java.time.Duration.ofSeconds(60))
        .until(
            () -> owner.fetchExists(slotRow().and(DSL.field("active", Boolean.class).eq(active))));
  }

  private org.jooq.SelectConditionStep<org.jooq.Record1<Integer>> slotRow() {
    return DSL.selectOne()
        .from(DSL.table("pg_replication_slots"))
        .where(DSL.field("slot_name", String.class).eq(slot()));
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
