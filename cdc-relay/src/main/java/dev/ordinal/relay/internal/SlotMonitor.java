package dev.ordinal.relay.internal;

import dev.ordinal.messaging.db.DatabaseSettings;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.jooq.DSLContext;
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

  /** The slot's lag and the standbys, on one connection: what the relay reads every 5 s. */
  public record Check(Reading slot, StandbyGuard.Reading standbys) {}

  /** The physical standbys a failover could lose published events to ({@link StandbyGuard}). */
  public StandbyGuard.Reading standbys() throws SQLException {
    try (Connection c = connect()) {
      return StandbyGuard.read(DSL.using(c), slotName);
    }
  }

  public Reading read() throws SQLException {
    try (Connection c = connect()) {
      return read(DSL.using(c));
    }
  }

  /** {@link #read()} and {@link #standbys()} on one connection. */
  public Check check() throws SQLException {
    try (Connection c = connect()) {
      DSLContext dsl = DSL.using(c);
      return new Check(read(dsl), StandbyGuard.read(dsl, slotName));
    }
  }

  private Reading read(DSLContext dsl) {
    Record3<Long, Boolean, String> r =
        dsl.select(
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

  private Connection connect() throws SQLException {
    return DriverManager.getConnection(db.jdbcUrl(), Jdbc.props(db.user(), db.password()));
  }
}
