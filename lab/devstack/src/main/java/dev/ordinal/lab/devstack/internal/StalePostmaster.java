package dev.ordinal.lab.devstack.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A kill -9 of the JVM leaves the postmaster running (re-parented to PID 1) on the fixed data
 * directory, and the next start does not clean it up. This stops it by the PID in its {@code
 * postmaster.pid}, first politely (SIGTERM = smart shutdown), then by force.
 */
public final class StalePostmaster {
  private static final Logger log = LoggerFactory.getLogger(StalePostmaster.class);
  private static final Duration POLITE_WAIT = Duration.ofSeconds(10);

  private StalePostmaster() {}

  /** Returns the PID that was stopped, if any. */
  public static Optional<Long> stopIfRunning(Path dataDir) {
    Path pidFile = dataDir.resolve("postmaster.pid");
    if (!Files.isRegularFile(pidFile)) {
      return Optional.empty();
    }
    long pid;
    try {
      List<String> lines = Files.readAllLines(pidFile);
      if (lines.isEmpty()) {
        Files.deleteIfExists(pidFile);
        return Optional.empty();
      }
      pid = Long.parseLong(lines.get(0).trim());
    } catch (IOException | NumberFormatException e) {
      log.warn("Ignoring unreadable {}: {}", pidFile, e.getMessage());
      return Optional.empty();
    }
    Optional<ProcessHandle> handle = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
    if (handle.isPresent() && isPostgres(handle.get())) {
      ProcessHandle p = handle.get();
      log.warn("Stopping a stale PostgreSQL (pid {}) left on {} by an earlier run", pid, dataDir);
      p.destroy();
      try {
        p.onExit().get(POLITE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (Exception notYet) {
        p.destroyForcibly();
        try {
          p.onExit().get(POLITE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
          log.warn("Stale PostgreSQL pid {} did not exit: {}", pid, e.toString());
        }
      }
      deleteQuietly(pidFile);
      return Optional.of(pid);
    }
    deleteQuietly(pidFile);
    return Optional.empty();
  }

  private static boolean isPostgres(ProcessHandle p) {
    return p.info().command().map(c -> c.contains("postgres")).orElse(true);
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      log.warn("Could not delete {}: {}", file, e.getMessage());
    }
  }
}
