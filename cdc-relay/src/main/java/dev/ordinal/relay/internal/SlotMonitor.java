package dev.ordinal.relay.internal;

import dev.ordinal.messaging.db.DatabaseSettings;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import org.jooq.Record3;
import org.jooq.impl.DSL;

/** Reads how much WAL the relay's slot holds back: current WAL LSN minus confirmed_flush_lsn. */
public final class SlotMonitor {
  private final DatabaseSettings db;
  private final String slotName;

  public SlotMonitor(DatabaseSettings db, String slotName) {
    this.db = db;
    this.slotName = slotName;
  }

  /** Slot lag in bytes and whether the slot is being streamed; null when there is no slot. */
  public record Reading(long lagBytes, boolean active, String confirmedFlushLsn) {}

  public Reading read() throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", db.user());
    props.setProperty("password", db.password());
    props.setProperty("connectTimeout", "5");
    props.setProperty("socketTimeout", "10");
    try (Connection c = DriverManager.getConnection(db.jdbcUrl(), props)) {
      Record3<Long, Boolean, String> r =
          DSL.using(c)
              .select(
                  DSL.field(
                      "pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint",
                      Long.class),
                  DSL.field("active", Boolean.class),
                  DSL.field("confirmed_flush_lsn::text", String.class))
              .from(DSL.table("pg_replication_slots"))
              .where(DSL.field("slot_name", String.class).eq(slotName))
              .fetchOne();
      if (r == null) {
        return null;
      }
      return new Reading(
          r.value1() == null ? 0 : r.value1(), Boolean.TRUE.equals(r.value2()), r.value3());
    }
  }
}
