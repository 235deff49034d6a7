package dev.ordinal.testkit.internal;

import dev.ordinal.lab.devstack.EmbeddedPostgresServer;
import dev.ordinal.lab.devstack.StackException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Set;

/**
 * Makes a streaming hot standby's data directory as a cold copy of a cleanly stopped primary's:
 * zonky's binaries have {@code initdb}, {@code pg_ctl} and {@code postgres} only, no {@code
 * pg_basebackup}.
 */
public final class ColdStandby {
  /** Top-level files not copied: the primary's postmaster's, and zonky's lock. */
  private static final Set<String> SKIPPED_FILES =
      Set.of("postmaster.pid", "postmaster.opts", "epg-lock");

  private ColdStandby() {}

  /**
   * Replaces {@code standbyDir} with a copy of {@code primaryDir} (stopped cleanly, so that its WAL
   * ends in a shutdown checkpoint) that starts as a hot standby streaming from the primary on
   * {@code primaryPort} through the physical slot {@code slotName}, with slot synchronisation on.
   * The copy keeps the 0700 mode PostgreSQL insists on.
   */
  public static void create(Path primaryDir, Path standbyDir, int primaryPort, String slotName) {
    if (Files.exists(primaryDir.resolve("postmaster.pid"))) {
      throw new StackException(
          "Cannot copy " + primaryDir + " while its PostgreSQL runs; stop it cleanly first.");
    }
    EmbeddedPostgresServer.discardData(standbyDir);
    try {
      copy(primaryDir, standbyDir);
      Files.createFile(standbyDir.resolve("standby.signal"));
      Files.writeString(
          standbyDir.resolve("postgresql.auto.conf"),
          standbySettings(primaryPort, slotName),
          StandardCharsets.UTF_8,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new StackException(
          "Cannot make the standby's data directory " + standbyDir + ": " + e.getMessage(), e);
    }
  }

  /**
   * Appended to the copied {@code postgresql.auto.conf}; the last occurrence of a setting wins.
   * {@code dbname} lets the slot sync worker connect; it also needs {@code hot_standby_feedback}.
   * The primary's {@code synchronized_standby_slots} came along with the copy and is cleared: after
   * a promotion it would name a slot that does not exist there, and every decoding of a failover
   * slot would wait for it forever.
   */
  static String standbySettings(int primaryPort, String slotName) {
    return String.format(
        """

        # a streaming hot standby with failover slot synchronisation (ordinal ColdStandby)
        primary_conninfo = 'host=localhost port=%d user=%s password=%s dbname=%s application_name=%s'
        primary_slot_name = '%s'
        hot_standby_feedback = on
        sync_replication_slots = on
        synchronized_standby_slots = ''
        """,
        primaryPort,
        EmbeddedPostgresServer.USER,
        EmbeddedPostgresServer.PASSWORD,
        EmbeddedPostgresServer.DATABASE,
        slotName,
        slotName);
  }

  /**
   * Copies everything but {@link #SKIPPED_FILES} and the slots: a copied failover slot (synced =
   * false) stops slot synchronisation ("same name slot already exists on the standby"), which
   * pg_basebackup avoids by skipping them too.
   */
  private static void copy(Path from, Path to) throws IOException {
    Path slots = from.resolve("pg_replslot");
    Files.walkFileTree(
        from,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs)
              throws IOException {
            if (slots.equals(dir.getParent())) {
              return FileVisitResult.SKIP_SUBTREE; // one slot's directory
            }
            // COPY_ATTRIBUTES: a directory keeps its mode (0700), a file its mode and times
            Files.copy(dir, to.resolve(from.relativize(dir)), StandardCopyOption.COPY_ATTRIBUTES);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            boolean skipped =
                file.getParent().equals(slots)
                    || (file.getParent().equals(from)
                        && SKIPPED_FILES.contains(file.getFileName().toString()));
            if (!skipped) {
              Files.copy(
                  file, to.resolve(from.relativize(file)), StandardCopyOption.COPY_ATTRIBUTES);
            }
            return FileVisitResult.CONTINUE;
          }
        });
  }
}
