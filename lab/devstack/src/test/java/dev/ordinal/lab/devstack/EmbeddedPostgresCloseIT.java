package dev.ordinal.lab.devstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closing the server after a write-heavy session: zonky's own stop waits only 5 s for the shutdown
 * checkpoint, so close checkpoints first and leaves that one next to nothing to write.
 */
class EmbeddedPostgresCloseIT {

  private static final Pattern WROTE = Pattern.compile("checkpoint complete: wrote (\\d+) buffers");

  @Test
  void closeCheckpointsBeforeTheShutdownCheckpoint(@TempDir Path dir) throws Exception {
    Path dataDir = dir.resolve("pg");
    EmbeddedPostgresServer server = EmbeddedPostgresServer.startLoggingToFile(dataDir, true);
    try (Connection c =
            DriverManager.getConnection(
                server.jdbcUrl(), EmbeddedPostgresServer.USER, EmbeddedPostgresServer.PASSWORD);
        Statement s = c.createStatement()) {
      s.execute("create table filler (id bigint primary key, payload text not null)");
      s.execute(
          "insert into filler select g, repeat(md5(g::text), 4) from generate_series(1, 200000) g");
    }
    server.close();

    List<String> log = Files.readAllLines(server.serverLog(), StandardCharsets.UTF_8);
    int forced = indexOf(log, "checkpoint starting: immediate force wait");
    int shutdown = indexOf(log, "checkpoint starting: shutdown");
    assertThat(forced).as("a forced checkpoint in %s", server.serverLog()).isNotNegative();
    assertThat(shutdown).as("the shutdown checkpoint").isGreaterThan(forced);
    long forcedWrote = wroteAfter(log, forced);
    long shutdownWrote = wroteAfter(log, shutdown);
    assertThat(forcedWrote).as("buffers the forced checkpoint wrote").isGreaterThan(1_000);
    assertThat(shutdownWrote)
        .as("buffers left to the shutdown checkpoint (%d written before it)", forcedWrote)
        .isLessThan(forcedWrote / 100);
    assertThat(log)
        .as("the postmaster stopped")
        .anyMatch(l -> l.contains("database system is shut down"));
    assertThat(dataDir.resolve("postmaster.pid")).doesNotExist();
  }

  private static int indexOf(List<String> log, String text) {
    for (int i = 0; i < log.size(); i++) {
      if (log.get(i).contains(text)) {
        return i;
      }
    }
    return -1;
  }

  private static long wroteAfter(List<String> log, int start) {
    for (int i = start + 1; i < log.size(); i++) {
      Matcher m = WROTE.matcher(log.get(i));
      if (m.find()) {
        return Long.parseLong(m.group(1));
      }
    }
    throw new AssertionError("no \"checkpoint complete\" after line " + (start + 1));
  }
}
