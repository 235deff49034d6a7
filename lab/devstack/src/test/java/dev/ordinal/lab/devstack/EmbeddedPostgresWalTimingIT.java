package dev.ordinal.lab.devstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The durable embedded server times its WAL syncs, so a bench can tell a slow disk from slow code.
 */
class EmbeddedPostgresWalTimingIT {

  @Test
  void eachCommitsWalSyncIsCountedAndTimed(@TempDir Path dir) throws Exception {
    try (EmbeddedPostgresServer server =
        EmbeddedPostgresServer.start(dir.resolve("pg"), false, true)) { // durable: fsync=on
      long[] before = walSyncs(server);
      try (Connection c = connect(server);
          Statement s = c.createStatement()) {
        assertThat(setting(c, "track_wal_io_timing")).isEqualTo("on");
        s.execute("create table t (id bigint primary key)");
        try (PreparedStatement insert = c.prepareStatement("insert into t values (?)")) {
          for (int i = 1; i <= 50; i++) {
            insert.setLong(1, i); // auto-commit: one WAL flush per insert, one client alone
            insert.executeUpdate();
          }
        }
      } // the backend's statistics are flushed when it exits
      long[][] after = new long[1][];
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                after[0] = walSyncs(server);
                return after[0][0] - before[0] >= 50;
              });
      assertThat(after[0][1] - before[1])
          .as("microseconds spent in %d WAL syncs", after[0][0] - before[0])
          .isPositive();
    }
  }

  private static Connection connect(EmbeddedPostgresServer server) throws Exception {
    return DriverManager.getConnection(
        server.jdbcUrl(), EmbeddedPostgresServer.USER, EmbeddedPostgresServer.PASSWORD);
  }

  private static String setting(Connection c, String name) throws Exception {
    try (PreparedStatement p = c.prepareStatement("select current_setting(?)")) {
      p.setString(1, name);
      try (ResultSet r = p.executeQuery()) {
        r.next();
        return r.getString(1);
      }
    }
  }

  /** WAL syncs so far and the microseconds they took. */
  private static long[] walSyncs(EmbeddedPostgresServer server) throws Exception {
    try (Connection c = connect(server);
        Statement s = c.createStatement();
        ResultSet r =
            s.executeQuery("select wal_sync, (wal_sync_time * 1000)::bigint from pg_stat_wal")) {
      r.next();
      return new long[] {r.getLong(1), r.getLong(2)};
    }
  }
}
