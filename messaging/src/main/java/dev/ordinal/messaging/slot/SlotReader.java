package dev.ordinal.messaging.slot;

import dev.ordinal.messaging.db.DatabaseSettings;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Properties;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.impl.DSL;

/**
 * Reads the logical replication slots of a PostgreSQL server and the WAL each holds back, from
 * {@code restart_lsn} (what the server keeps) and from {@code confirmed_flush_lsn} (what the client
 * has not confirmed), with {@code wal_status} and {@code safe_wal_size}: the one reader of the
 * relay's gauges and of {@code ./ordinal lag}. Any role may read {@code pg_replication_slots}.
 */
public final class SlotReader {
  private static final Field<String> NAME = DSL.field(DSL.name("slot_name"), String.class);

  private final DatabaseSettings db;
  private final String slot;

  /**
   * @param slot only this slot; null for every logical slot
   */
  public SlotReader(DatabaseSettings db, String slot) {
    this.db = db;
    this.slot = slot;
  }

  /**
   * The logical slots, sorted by name, on one short connection (5 s connect, 10 s socket timeout).
   *
   * @throws SQLException when the server cannot be reached or queried; the caller decides whether
   *     that matters (the consumer lag does not depend on it)
   */
  public List<SlotReading> read() throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", db.user());
    props.setProperty("password", db.password());
    props.setProperty("connectTimeout", "5");
    props.setProperty("socketTimeout", "10");
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), props)) {
      return read(DSL.using(c), slot);
    }
  }

  /** As {@link #read()}, on {@code dsl}'s connection; {@code slot} null for every logical slot. */
  public static List<SlotReading> read(DSLContext dsl, String slot) {
    Condition which = DSL.field(DSL.name("slot_type"), String.class).eq("logical");
    if (slot != null) {
      which = which.and(NAME.eq(slot));
    }
    return dsl.select(
            NAME,
            DSL.field(DSL.name("plugin"), String.class),
            DSL.field(DSL.name("active"), Boolean.class),
            DSL.field("pg_wal_lsn_diff(pg_current_wal_lsn(), restart_lsn)::bigint", Long.class),
            DSL.field(
                "pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint", Long.class),
            DSL.field("confirmed_flush_lsn::text", String.class),
            DSL.field(DSL.name("wal_status"), String.class),
            DSL.field(DSL.name("safe_wal_size"), Long.class))
        .from(DSL.table(DSL.name("pg_catalog", "pg_replication_slots")))
        .where(which)
        .orderBy(NAME)
        .fetch(
            r ->
                new SlotReading(
                    r.value1(),
                    r.value2(),
                    Boolean.TRUE.equals(r.value3()),
                    r.value4(),
                    r.value5(),
                    r.value6(),
                    r.value7(),
                    r.value8()));
  }
}
