package dev.ordinal.relay.internal;

import dev.ordinal.messaging.db.DatabaseSettings;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.jooq.Record3;
import org.jooq.impl.DSL;

/**
 * Reads how much WAL the relay's slot holds back: current WAL LSN minus confirmed_flush_lsn.
 *
 * @param db the database the slot is on
 * @param slotName the relay's replication slot
 */
public record SlotMonitor(DatabaseSettings db, String slotName) {
  /** Slot lag in bytes and whether the slot is being streamed; null when there is no slot. */
  public record Reading(long lagBytes, boolean active, String confirmedFlushLsn) {}

  /** The physical standbys a failover could lose published events to ({@link StandbyGuard}). */
  public StandbyGuard.Reading standbys() throws SQLException {
    try (Connection c =
        DriverManager.getConnection(db.jdbcUrl(), Jdbc.props(db.user(), db.password()))) {
      return StandbyGuard.read(DSL.using(c), slotName);
    }
  }

  public Reading read() throws SQLException {
    try (Connection c =
        DriverManager.getConnection(db.jdbcUrl(), Jdbc.props(db.user(), db.password()))) {
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
