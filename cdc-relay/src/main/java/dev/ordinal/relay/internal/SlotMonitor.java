package dev.ordinal.relay.internal;

import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.slot.SlotMeters;
import dev.ordinal.messaging.slot.SlotReader;
import dev.ordinal.messaging.slot.SlotReading;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the relay's slot ({@link SlotReader}: WAL held back from {@code restart_lsn} and {@code
 * confirmed_flush_lsn}, {@code wal_status}, {@code safe_wal_size}) and the physical standbys, and
 * publishes the slot's figures as {@link SlotMeters} gauges; warns when the WAL the server keeps
 * for the slot passes the alert threshold.
 */
public final class SlotMonitor implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SlotMonitor.class);

  private final DatabaseSettings db;
  private final String slotName;
  private final long alertBytes;
  private final SlotMeters meters;
  private volatile SlotReading last;

  /**
   * @param tags added to the slot's gauges (the relay's instance)
   * @param alertBytes WAL held back (from {@code restart_lsn}) above which a warning is logged
   */
  public SlotMonitor(
      DatabaseSettings db, String slotName, long alertBytes, MeterRegistry registry, Tags tags) {
    this.db = db;
    this.slotName = slotName;
    this.alertBytes = alertBytes;
    this.meters = new SlotMeters(registry, tags);
  }

  /** The physical standbys a failover could lose published events to ({@link StandbyGuard}). */
  public StandbyGuard.Reading standbys() throws SQLException {
    try (Connection c = connect()) {
      return StandbyGuard.read(DSL.using(c), slotName);
    }
  }

  /** The slot now; null when there is none. */
  public SlotReading read() throws SQLException {
    try (Connection c = connect()) {
      return read(DSL.using(c));
    }
  }

  /**
   * Reads the slot and the standbys on one connection (what the relay does every 5 s), sets the
   * slot's gauges, and returns the standbys.
   */
  public StandbyGuard.Reading check() throws SQLException {
    try (Connection c = connect()) {
      DSLContext dsl = DSL.using(c);
      SlotReading r = read(dsl);
      last = r;
      meters.update(r == null ? List.of() : List.of(r));
      if (r != null && restartLag(r) > alertBytes) {
        log.warn(
            "Slot {} holds back {} bytes of WAL from its restart_lsn (alert above {}; wal_status"
                + " {})",
            slotName,
            restartLag(r),
            alertBytes,
            r.walStatus());
      }
      return StandbyGuard.read(dsl, slotName);
    }
  }

  /** WAL the server keeps for the slot at the last check (from {@code restart_lsn}); -1 before. */
  public long restartLagBytes() {
    SlotReading r = last;
    return r == null ? -1 : restartLag(r);
  }

  private static long restartLag(SlotReading r) {
    return r.restartLagBytes() == null ? 0 : r.restartLagBytes();
  }

  private SlotReading read(DSLContext dsl) {
    List<SlotReading> r = SlotReader.read(dsl, slotName);
    return r.isEmpty() ? null : r.get(0);
  }

  private Connection connect() throws SQLException {
    return DriverManager.getConnection(db.jdbcUrl(), Jdbc.props(db.user(), db.password()));
  }

  /** Removes the slot's gauges. */
  @Override
  public void close() {
    meters.close();
  }
}
