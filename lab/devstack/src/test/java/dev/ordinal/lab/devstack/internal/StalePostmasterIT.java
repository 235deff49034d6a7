package dev.ordinal.lab.devstack.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.lab.devstack.EmbeddedPostgresServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JVM killed with SIGKILL leaves its postmaster running on the fixed data directory; the next
 * start must stop it and come up clean.
 */
class StalePostmasterIT {

  /** Child JVM: starts PostgreSQL on args[0], prints READY, and waits to be killed. */
  public static final class Child {
    public static void main(String[] args) throws Exception {
      EmbeddedPostgresServer.start(Path.of(args[0]), false);
      System.out.println("READY");
      System.out.flush();
      Thread.currentThread().join();
    }
  }

  @Test
  void aPostmasterLeftByAKilledJvmIsStoppedOnTheNextStart(@TempDir Path dir) throws Exception {
    Path dataDir = dir.resolve("pg");
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                Child.class.getName(),
                dataDir.toString())
            .redirectErrorStream(true)
            .start();
    try (BufferedReader lines =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      do {
        line = lines.readLine();
      } while (line != null && !line.contains("READY"));
      assertThat(line).as("child started PostgreSQL").isNotNull();
    }
    child.destroyForcibly(); // SIGKILL: no shutdown hook runs
    assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();

    long stalePid =
        Long.parseLong(Files.readAllLines(dataDir.resolve("postmaster.pid")).get(0).trim());
    assertThat(ProcessHandle.of(stalePid).map(ProcessHandle::isAlive))
        .as("the killed JVM's postmaster outlives it")
        .contains(true);

    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dataDir, false)) {
      assertThat(ProcessHandle.of(stalePid).map(ProcessHandle::isAlive).orElse(false))
          .as("stale postmaster %d stopped", stalePid)
          .isFalse();
      try (Connection c =
          DriverManager.getConnection(
              pg.jdbcUrl(), EmbeddedPostgresServer.USER, EmbeddedPostgresServer.PASSWORD)) {
        assertThat(c.isValid(5)).isTrue();
      }
    }
  }
}
