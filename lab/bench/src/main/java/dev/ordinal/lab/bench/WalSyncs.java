package dev.ordinal.lab.bench;

import dev.ordinal.messaging.db.DatabaseSettings;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Optional;
import org.jooq.Record3;
import org.jooq.SQLDialect;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;

/**
 * PostgreSQL's WAL syncs so far and the time they took ({@code pg_stat_wal}), read before and after
 * a scenario. Every durable commit waits for one (shared by group commit), so their mean time is
 * the disk's share of a commit: a busy host's disk shows there even when it takes no CPU.
 *
 * @param syncs WAL syncs since the statistics were reset
 * @param millis their time in milliseconds, counted only when {@code track_wal_io_timing} is on
 * @param timed whether {@code track_wal_io_timing} is on (the embedded PostgreSQL turns it on)
 */
public record WalSyncs(long syncs, double millis, boolean timed) {

  /**
   * The server's counters now, on a connection of its own; empty when they cannot be read (no
   * {@code pg_stat_wal} with these columns, as in PostgreSQL 18, or the server unreachable).
   */
  public static Optional<WalSyncs> read(DatabaseSettings db) {
    try (Connection c =
        DriverManager.getConnection(db.jdbcUrl(), db.user(), db.effectivePassword())) {
      Record3<Long, Double, String> r =
          DSL.using(c, SQLDialect.POSTGRES)
              .select(
                  DSL.field(DSL.name("wal_sync"), Long.class),
                  DSL.field(DSL.name("wal_sync_time"), Double.class),
                  DSL.field("current_setting({0})", String.class, DSL.val("track_wal_io_timing")))
              .from(DSL.table(DSL.name("pg_stat_wal")))
              .fetchOne();
      return r == null
          ? Optional.empty()
          : Optional.of(new WalSyncs(r.value1(), r.value2(), "on".equals(r.value3())));
    } catch (SQLException | DataAccessException e) {
      return Optional.empty();
    }
  }

  /**
   * "0.42": the mean milliseconds of the WAL syncs between two readings; "n/a" when a reading is
   * missing, the syncs were not timed, or there were none (fsync off).
   */
  public static String meanCell(Optional<WalSyncs> before, Optional<WalSyncs> after) {
    if (before.isEmpty() || after.isEmpty() || !before.get().timed || !after.get().timed) {
      return "n/a";
    }
    long syncs = after.get().syncs - before.get().syncs;
    return syncs <= 0
        ? "n/a"
        : String.format("%.2f", (after.get().millis - before.get().millis) / syncs);
  }
}
