package dev.ordinal.ops.lag;

import dev.ordinal.messaging.db.DatabaseSettings;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Properties;
import org.jooq.Condition;
import org.jooq.Field;
import org.jooq.impl.DSL;

/**
 * Reads the logical replication slots of a PostgreSQL server and how much WAL each holds back, so
 * the relay's lag (commit to Kafka) shows beside the consumers' (Kafka to applied). Opens one short
 * connection per read; needs a role that may read {@code pg_replication_slots} (any role may).
 */
public final class SlotLagReader {
  private static final Field<String> NAME = DSL.field(DSL.name("slot_name"), String.class);

  private final DatabaseSettings db;
  private final String slot;

  /**
   * @param slot only this slot; null for every logical slot
   */
  public SlotLagReader(DatabaseSettings db, String slot) {
    this.db = db;
    this.slot = slot;
  }

  /**
   * The logical slots, sorted by name.
   *
   * @throws SQLException when the server cannot be reached or queried; the caller decides whether
   *     that matters (the consumer lag does not depend on it)
   */
  public List<SlotLag> read() throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", db.user());
    props.setProperty("password", db.password());
    props.setProperty("connectTimeout", "5");
    props.setProperty("socketTimeout", "10");
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), props)) {
      Condition which = DSL.field(DSL.name("slot_type"), String.class).eq("logical");
      if (slot != null) {
        which = which.and(NAME.eq(slot));
      }
      return DSL.using(c)
          .select(
              NAME,
              DSL.field(DSL.name("plugin"), String.class),
              DSL.field(DSL.name("active"), Boolean.class),
              DSL.field(
                  "pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint", Long.class),
              DSL.field("confirmed_flush_lsn::text", String.class))
          .from(DSL.table(DSL.name("pg_replication_slots")))
          .where(which)
          .orderBy(NAME)
          .fetch(
              r ->
                  new SlotLag(
                      r.value1(),
                      r.value2(),
                      Boolean.TRUE.equals(r.value3()),
                      r.value4(),
                      r.value5()));
    }
  }
}
