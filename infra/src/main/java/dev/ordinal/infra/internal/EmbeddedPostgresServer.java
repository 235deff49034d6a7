package dev.ordinal.infra.internal;

import dev.ordinal.infra.StackException;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A real PostgreSQL 17 from zonky's binaries, configured for logical replication, on a fixed data
 * directory. zonky turns fsync and synchronous_commit off; we turn synchronous_commit back on so
 * that logical decoding sees a commit at once (it waits for the WAL writer otherwise), and fsync on
 * when asked for durable figures.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {
  public static final String USER = "postgres";
  public static final String PASSWORD = "postgres";
  public static final String DATABASE = "postgres";

  private final EmbeddedPostgres postgres;

  private EmbeddedPostgresServer(EmbeddedPostgres postgres) {
    this.postgres = postgres;
  }

  public static EmbeddedPostgresServer start(Path dataDir, boolean keepData) {
    return start(dataDir, keepData, false);
  }

  /**
   * Starts PostgreSQL on {@code dataDir}.
   *
   * @param durable {@code fsync=on} (benchmarks that claim durable figures); off otherwise
   */
  public static EmbeddedPostgresServer start(Path dataDir, boolean keepData, boolean durable) {
    StalePostmaster.stopIfRunning(dataDir);
    try {
      Files.createDirectories(dataDir.getParent());
      if (!keepData) {
        // a killed run leaves its data behind, and initdb refuses a non-empty directory
        Directories.deleteRecursively(dataDir);
      }
    } catch (IOException e) {
      throw new StackException("Cannot prepare " + dataDir + ": " + e.getMessage(), e);
    }
    int port = FreePorts.pick(1)[0];
    try {
      EmbeddedPostgres pg =
          EmbeddedPostgres.builder()
              .setDataDirectory(dataDir)
              .setCleanDataDirectory(!keepData)
              .setPort(port)
              .setPGStartupWait(Duration.ofSeconds(60))
              .setServerConfig("wal_level", "logical")
              .setServerConfig("max_replication_slots", "64")
              .setServerConfig("max_wal_senders", "64")
              .setServerConfig("max_connections", "300")
              .setServerConfig("synchronous_commit", "on")
              .setServerConfig("fsync", durable ? "on" : "off")
              .setServerConfig("full_page_writes", durable ? "on" : "off")
              .setServerConfig("wal_writer_delay", "10ms")
              .setServerConfig("max_slot_wal_keep_size", "1GB")
              .start();
      return new EmbeddedPostgresServer(pg);
    } catch (IOException e) {
      throw new StackException(
          "The embedded PostgreSQL did not start in " + dataDir + ": " + e.getMessage(), e);
    }
  }

  public int port() {
    return postgres.getPort();
  }

  public String jdbcUrl() {
    return "jdbc:postgresql://localhost:" + port() + "/" + DATABASE;
  }

  @Override
  public void close() {
    try {
      postgres.close();
    } catch (IOException e) {
      throw new StackException("The embedded PostgreSQL did not stop: " + e.getMessage(), e);
    }
  }
}
