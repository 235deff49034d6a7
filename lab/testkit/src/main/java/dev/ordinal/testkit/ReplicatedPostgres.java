package dev.ordinal.testkit;

import dev.ordinal.lab.devstack.EmbeddedPostgresServer;
import dev.ordinal.lab.devstack.ServerControl.Shutdown;
import dev.ordinal.lab.devstack.StackException;
import dev.ordinal.testkit.internal.ColdStandby;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL 17 primary and a streaming hot standby of it, with failover-slot synchronisation,
 * for tests that fail a logical replication client over from one to the other: a failover logical
 * slot created on the primary ({@code pg_create_logical_replication_slot(name, plugin, false,
 * false, true)}, or Debezium's {@code slot.failover=true}) is copied to the standby by its slot
 * sync worker, and after {@link #crashPrimary} and {@link #promoteStandby} the client finds it on
 * the promoted standby and resumes from where it had confirmed.
 *
 * <p>Both servers run zonky's embedded binaries on this machine, as the embedded stack's does
 * ({@code wal_level=logical}, {@code fsync=off}, {@code synchronous_commit=on}), each on its own
 * fixed loopback port, user and password {@code postgres}, database {@code postgres}. The names
 * "primary" and "standby" are the roles at {@link #start}: after a promotion, {@link #standbyUrl}
 * is the primary's address. A client that must follow the primary connects with {@link
 * #multiHostUrl} plus {@code targetServerType=primary}; pgjdbc remembers which host was a standby
 * for {@code hostRecheckSeconds} (10 s by default) per JVM, so set it to 0 or 1 when the client
 * reconnects right after a promotion.
 *
 * <p>What the caller can rely on once {@link #start} returns:
 *
 * <ul>
 *   <li>The standby streams from the primary through the physical slot {@value #STANDBY_SLOT}
 *       ({@code pg_stat_replication} shows it {@code streaming}), asynchronously: a crash of the
 *       primary loses the commits the standby had not received.
 *   <li>The primary has {@code synchronized_standby_slots = '}{@value #STANDBY_SLOT}{@code '}:
 *       logical decoding of a failover slot (a walsender, or the SQL functions) sends nothing the
 *       standby has not flushed. What a client of a failover slot received, the standby has. While
 *       the standby is behind or down, those clients wait. The standby has it empty, so decoding on
 *       it after its promotion does not wait for a standby it does not have.
 *   <li>Every method blocks until its action is complete, within a bound, and throws {@link
 *       StackException} with one sentence on failure. Actions on one server are serialized; the
 *       methods may be called from any thread.
 * </ul>
 *
 * <p>Limits: one standby; a stopped or crashed primary is not started again (and after a promotion
 * could not rejoin: no {@code pg_rewind} in the binaries), except briefly by {@link #close}; a
 * synced slot cannot be used on the standby before its promotion (PostgreSQL refuses: "This
 * replication slot is being synchronized from the primary server"); {@code fsync=off}, so a crash
 * is a process crash, not a power failure (the operating system keeps what the server wrote). Only
 * {@code synced AND NOT temporary} on the standby means a slot would survive a failover; {@link
 * #awaitSlotSynced} waits for exactly that.
 *
 * <p>A failover test goes: {@link #start}; create the failover slot on the primary (or let the
 * client create it); {@link #awaitSlotOnStandby}; let the client consume and confirm changes;
 * {@link #awaitSlotSynced}; {@link #crashPrimary}; {@link #promoteStandby}; the client resumes on
 * the promoted standby.
 *
 * <p>Files: {@code <dir>/primary} and {@code <dir>/standby} are the data directories, {@code
 * <dir>/primary-server.log} and {@code <dir>/standby-server.log} what each server logged (the slot
 * sync worker's reasons are in the standby's). {@link #start} replaces them; {@link #close} keeps
 * them.
 */
public final class ReplicatedPostgres implements AutoCloseable {
  /** The standby's physical slot on the primary, and its {@code application_name}. */
  public static final String STANDBY_SLOT = "standby1";

  /** How long {@link #start} waits for the standby to stream. */
  private static final Duration STREAMING_WAIT = Duration.ofSeconds(30);

  /** How often {@link #awaitSlotSynced} nudges the primary and the slot sync worker. */
  private static final Duration NUDGE_INTERVAL = Duration.ofSeconds(1);

  private static final Duration POLL_INTERVAL = Duration.ofMillis(50);

  /** Marks this class's own connections in {@code pg_stat_activity}. */
  private static final String APPLICATION_NAME = "ordinal-replicated-postgres";

  private static final Logger log = LoggerFactory.getLogger(ReplicatedPostgres.class);

  private final EmbeddedPostgresServer primary;
  private final EmbeddedPostgresServer standby;

  private ReplicatedPostgres(EmbeddedPostgresServer primary, EmbeddedPostgresServer standby) {
    this.primary = primary;
    this.standby = standby;
  }

  /**
   * Starts a fresh primary in {@code dir/primary} and a hot standby in {@code dir/standby}, and
   * returns when the standby streams (a few seconds). Whatever those directories held is deleted
   * first, as is a postmaster an earlier, killed run left on them. The standby is a cold copy of
   * the primary (the embedded binaries have no {@code pg_basebackup}), so the primary is stopped
   * once while it is made; anything created on the primary before this returns is on both.
   *
   * @throws StackException when a server does not start or the standby does not stream within 30 s;
   *     whatever was started is stopped again
   */
  public static ReplicatedPostgres start(Path dir) {
    long t0 = System.nanoTime();
    Path primaryDir = dir.resolve("primary");
    Path standbyDir = dir.resolve("standby");
    EmbeddedPostgresServer.discardData(primaryDir);
    EmbeddedPostgresServer.discardData(standbyDir);
    EmbeddedPostgresServer primary = null;
    EmbeddedPostgresServer standby = null;
    try {
      // keepData on an empty directory: zonky runs initdb, and close() does not delete it
      primary = EmbeddedPostgresServer.startLoggingToFile(primaryDir, true);
      prepareForStandby(primary);
      primary.stop(Shutdown.CLEAN);
      ColdStandby.create(primaryDir, standbyDir, primary.port(), STANDBY_SLOT);
      primary.start();
      standby = EmbeddedPostgresServer.startLoggingToFile(standbyDir, true);
      ReplicatedPostgres pair = new ReplicatedPostgres(primary, standby);
      pair.awaitStreaming();
      log.info(
          "PostgreSQL primary on port {} and streaming standby on port {} started in {} ms",
          primary.port(),
          standby.port(),
          millisSince(t0));
      return pair;
    } catch (RuntimeException e) {
      closeQuietly(standby, e);
      closeQuietly(primary, e);
      throw e;
    }
  }

  /** The JDBC URL of the server started as the primary. */
  public String primaryUrl() {
    return primary.jdbcUrl();
  }

  /** The JDBC URL of the server started as the standby (the primary after a promotion). */
  public String standbyUrl() {
    return standby.jdbcUrl();
  }

  /**
   * {@code jdbc:postgresql://localhost:<primary port>,localhost:<standby port>/postgres}, without
   * parameters; add {@code ?targetServerType=primary} to reach whichever is the primary.
   */
  public String multiHostUrl() {
    return "jdbc:postgresql://localhost:"
        + primary.port()
        + ",localhost:"
        + standby.port()
        + "/"
        + EmbeddedPostgresServer.DATABASE;
  }

  public int primaryPort() {
    return primary.port();
  }

  public int standbyPort() {
    return standby.port();
  }

  public String user() {
    return EmbeddedPostgresServer.USER;
  }

  public String password() {
    return EmbeddedPostgresServer.PASSWORD;
  }

  /**
   * Waits until the standby's slot sync worker has picked up the failover logical slot {@code slot}
   * (a row in the standby's {@code pg_replication_slots}, at first a temporary placeholder), then
   * calls {@code pg_log_standby_snapshot()} on the primary. Call it after creating the slot, before
   * its client consumes: once the client has consumed and confirmed a change committed after this
   * returns, the standby's copy becomes sync-ready (see {@link #awaitSlotSynced}).
   *
   * <p>Why: the placeholder reserves WAL and a catalog xmin when the worker creates it, and becomes
   * a real slot only once the primary's slot has moved its restart_lsn and catalog_xmin past them.
   * Those move only when the slot decodes past a running-xacts record, so the record has to be
   * written after the placeholder exists; the primary writes one by itself only every 15 s. The
   * worker is woken meanwhile, as in {@link #awaitSlotSynced}.
   *
   * @throws StackException when {@code slot} is not a logical failover slot on the primary, a
   *     server does not answer, or the standby has no such slot within {@code timeout}
   */
  public void awaitSlotOnStandby(String slot, Duration timeout) {
    long t0 = System.nanoTime();
    long deadline = t0 + timeout.toNanos();
    try (Connection p = connect(primary);
        Connection s = connect(standby)) {
      primaryConfirmedFlush(p, slot);
      long nextWakeUp = t0;
      while (true) {
        if (System.nanoTime() - nextWakeUp >= 0) {
          wakeSlotSyncWorker(s);
          nextWakeUp = System.nanoTime() + NUDGE_INTERVAL.toNanos();
        }
        SyncedSlot seen = syncedSlot(s, slot, "0/0");
        if (seen.exists()) {
          logStandbySnapshot(p);
          log.info(
              "Slot {} seen on the standby ({}) in {} ms", slot, seen.describe(), millisSince(t0));
          return;
        }
        if (System.nanoTime() - deadline >= 0) {
          throw new StackException(
              "The standby's slot sync worker did not pick up slot "
                  + slot
                  + " within "
                  + timeout.toMillis()
                  + " ms (see "
                  + standby.serverLog()
                  + ").");
        }
        pause();
      }
    } catch (SQLException e) {
      throw new StackException(
          "Waiting for slot " + slot + " to appear on the standby failed: " + e.getMessage(), e);
    }
  }

  /**
   * Waits until the standby holds the failover logical slot {@code slot} ready for a failover:
   * {@code synced AND NOT temporary} in its {@code pg_replication_slots}, with a {@code
   * confirmed_flush_lsn} at least the primary's at the call. After that a promotion keeps the slot,
   * and a client resuming from it on the promoted standby gets every change it had not confirmed on
   * the primary before the call (and possibly some it confirmed later again: at least once).
   *
   * <p>Meanwhile, once a second, it calls {@code pg_log_standby_snapshot()} on the primary, and
   * reloads the standby's configuration, which wakes the slot sync worker from its nap (up to 30 s
   * when nothing changed). A new slot becomes ready only once its client has confirmed a position
   * after a running-xacts record that was written after the standby picked the slot up (see {@link
   * #awaitSlotOnStandby}): the snapshots written here serve a client that keeps streaming changes
   * meanwhile, not one that has stopped consuming.
   *
   * @throws StackException when {@code slot} is not a logical failover slot on the primary, a
   *     server does not answer, or the standby is not ready within {@code timeout}; the message
   *     says what the standby showed last
   */
  public void awaitSlotSynced(String slot, Duration timeout) {
    long t0 = System.nanoTime();
    long deadline = t0 + timeout.toNanos();
    try (Connection p = connect(primary);
        Connection s = connect(standby)) {
      String target = primaryConfirmedFlush(p, slot);
      long nextNudge = t0;
      while (true) {
        if (System.nanoTime() - nextNudge >= 0) {
          logStandbySnapshot(p);
          wakeSlotSyncWorker(s);
          nextNudge = System.nanoTime() + NUDGE_INTERVAL.toNanos();
        }
        SyncedSlot seen = syncedSlot(s, slot, target);
        if (seen.ready()) {
          log.info(
              "Slot {} synced to the standby at {} (primary at {} when asked) in {} ms",
              slot,
              seen.confirmedFlush(),
              target,
              millisSince(t0));
          return;
        }
        if (System.nanoTime() - deadline >= 0) {
          throw new StackException(
              "Slot "
                  + slot
                  + " was not ready on the standby within "
                  + timeout.toMillis()
                  + " ms: "
                  + seen.describe()
                  + ", and the primary's confirmed_flush_lsn was "
                  + target
                  + " (see "
                  + standby.serverLog()
                  + ").");
        }
        pause();
      }
    } catch (SQLException e) {
      throw new StackException(
          "Waiting for slot " + slot + " to be synced to the standby failed: " + e.getMessage(), e);
    }
  }

  /**
   * Sets the primary's {@code synchronized_standby_slots} ({@code ''} for none: logical decoding
   * then waits for no standby) and reloads it; returns when the primary's new sessions see it.
   */
  public void standbySlotsOnPrimary(String slots) {
    exec(
        primary,
        "synchronized_standby_slots on the primary",
        // a utility statement takes no bind values; quote the value as a literal
        "alter system set synchronized_standby_slots = '" + slots.replace("'", "''") + "'",
        "select pg_reload_conf()");
  }

  /**
   * Pauses ({@code true}) or resumes the standby's replay of WAL ({@code pg_wal_replay_pause()}):
   * while paused, it answers queries with what it had replayed, so it lacks later commits.
   */
  public void holdStandbyReplay(boolean hold) {
    exec(
        standby,
        "pausing or resuming the standby's replay",
        hold ? "select pg_wal_replay_pause()" : "select pg_wal_replay_resume()");
  }

  private static void exec(EmbeddedPostgresServer server, String what, String... statements) {
    try (Connection c = connect(server);
        Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
    } catch (SQLException e) {
      throw new StackException(
          what + " on port " + server.port() + " failed: " + e.getMessage(), e);
    }
  }

  /**
   * Crashes the primary ({@code pg_ctl stop -m immediate}: every process quits at once, no
   * checkpoint, clients see their connections break); returns when its port refuses connections.
   */
  public void crashPrimary() {
    long t0 = System.nanoTime();
    primary.stop(Shutdown.CRASH);
    log.info("PostgreSQL primary on port {} crashed in {} ms", primary.port(), millisSince(t0));
  }

  /**
   * Stops the primary with a fast shutdown (clients disconnected, a shutdown checkpoint written,
   * walsenders hand out the WAL they have first); returns when its port refuses connections.
   */
  public void stopPrimary() {
    long t0 = System.nanoTime();
    primary.stop(Shutdown.CLEAN);
    log.info("PostgreSQL primary on port {} stopped in {} ms", primary.port(), millisSince(t0));
  }

  /**
   * Promotes the standby ({@code pg_ctl promote}); returns when it answers as a primary ({@code
   * pg_is_in_recovery()} is false), on its own port, on a new timeline. Its synced slots stay, with
   * {@code failover} and {@code synced} true; slots that were not sync-ready are dropped. Nothing
   * stops the old primary: crash or stop it first, or two primaries answer.
   */
  public void promoteStandby() {
    long t0 = System.nanoTime();
    standby.promote();
    log.info("PostgreSQL standby on port {} promoted in {} ms", standby.port(), millisSince(t0));
  }

  /**
   * Stops both servers, whatever their state, and keeps their directories. A server that is already
   * stopped (a crashed primary) is started once more so that zonky can stop it and let go of its
   * directory, as {@code EmbeddedPostgresServer.close} does: for a moment the old primary answers
   * again, so stop the clients first. Throws only when a server could not be stopped, after trying
   * both.
   */
  @Override
  public void close() {
    RuntimeException failure = null;
    for (EmbeddedPostgresServer server : List.of(standby, primary)) {
      try {
        server.close();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * The standby's physical slot (reserving WAL from now on, so that the standby can stream from the
   * copy's checkpoint), and logical decoding of failover slots held back until the standby has the
   * WAL. Both reach the standby with the copy; the copy drops the slot, and the standby clears the
   * setting. No reload: the primary restarts before it has a failover slot.
   */
  private static void prepareForStandby(EmbeddedPostgresServer primary) {
    try (Connection c = connect(primary)) {
      try (PreparedStatement ps =
          c.prepareStatement("select pg_create_physical_replication_slot(?, true)")) {
        ps.setString(1, STANDBY_SLOT);
        ps.execute();
      }
      try (Statement s = c.createStatement()) {
        // a utility statement takes no bind values; the name is our constant
        s.execute("alter system set synchronized_standby_slots = '" + STANDBY_SLOT + "'");
      }
    } catch (SQLException e) {
      throw new StackException(
          "Preparing the primary on port "
              + primary.port()
              + " for a standby failed: "
              + e.getMessage(),
          e);
    }
  }

  private void awaitStreaming() {
    long deadline = System.nanoTime() + STREAMING_WAIT.toNanos();
    String last = "no walsender for it";
    try (Connection c = connect(primary);
        PreparedStatement ps =
            c.prepareStatement(
                "select state from pg_stat_replication where application_name = ?")) {
      ps.setString(1, STANDBY_SLOT);
      while (System.nanoTime() - deadline < 0) {
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            last = "state " + rs.getString(1);
            if ("streaming".equals(rs.getString(1))) {
              return;
            }
          }
        }
        pause();
      }
    } catch (SQLException e) {
      throw new StackException(
          "Checking that the standby streams from the primary failed: " + e.getMessage(), e);
    }
    throw new StackException(
        "The standby on port "
            + standby.port()
            + " did not stream from the primary within "
            + STREAMING_WAIT.toSeconds()
            + " s: pg_stat_replication showed "
            + last
            + " (see "
            + standby.serverLog()
            + ").");
  }

  /** The slot's confirmed_flush_lsn on the primary, after checking it can be synced at all. */
  private String primaryConfirmedFlush(Connection p, String slot) throws SQLException {
    try (PreparedStatement ps =
        p.prepareStatement(
            """
            select slot_type, failover, temporary, coalesce(confirmed_flush_lsn, '0/0')::text
              from pg_replication_slots
             where slot_name = ?
            """)) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new StackException(
              "There is no slot " + slot + " on the primary on port " + primary.port() + ".");
        }
        if (!"logical".equals(rs.getString(1)) || !rs.getBoolean(2) || rs.getBoolean(3)) {
          throw new StackException(
              "Slot "
                  + slot
                  + " on the primary is not a permanent logical failover slot, which is all"
                  + " PostgreSQL synchronises: create it with"
                  + " pg_create_logical_replication_slot(name, plugin, false, false, true) or"
                  + " Debezium's slot.failover=true.");
        }
        return rs.getString(4);
      }
    }
  }

  /**
   * A running-xacts record: a slot that decodes past it can move its restart_lsn there and its
   * catalog_xmin to the record's oldest running xid.
   */
  private static void logStandbySnapshot(Connection p) throws SQLException {
    try (Statement st = p.createStatement()) {
      st.execute("select pg_log_standby_snapshot()");
    }
  }

  /**
   * The standby reloads its configuration: the SIGHUP sets the slot sync worker's latch, which ends
   * its nap (200 ms after a change, doubling up to 30 s while nothing changes; measured: 25 ms
   * instead of 5.4 s after 20 s idle). Each reload logs "parameter max_connections cannot be
   * changed without restarting the server" and "configuration file ... contains errors": initdb
   * wrote 100 into postgresql.conf, zonky passes 300 on the command line, which wins. Noise only.
   */
  private static void wakeSlotSyncWorker(Connection s) throws SQLException {
    try (Statement st = s.createStatement()) {
      st.execute("select pg_reload_conf()");
    }
  }

  private static SyncedSlot syncedSlot(Connection s, String slot, String target)
      throws SQLException {
    try (PreparedStatement ps =
        s.prepareStatement(
            """
            select synced, temporary, confirmed_flush_lsn::text,
                   coalesce(confirmed_flush_lsn >= cast(? as pg_lsn), false), invalidation_reason
              from pg_replication_slots
             where slot_name = ?
            """)) {
      ps.setString(1, target);
      ps.setString(2, slot);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return SyncedSlot.MISSING;
        }
        return new SyncedSlot(
            true,
            rs.getBoolean(1),
            rs.getBoolean(2),
            rs.getString(3),
            rs.getBoolean(4),
            rs.getString(5));
      }
    }
  }

  /** A slot as the standby's {@code pg_replication_slots} shows it. */
  private record SyncedSlot(
      boolean exists,
      boolean synced,
      boolean temporary,
      String confirmedFlush,
      boolean caughtUp,
      String invalidation) {
    static final SyncedSlot MISSING = new SyncedSlot(false, false, false, null, false, null);

    boolean ready() {
      return exists && synced && !temporary && caughtUp && invalidation == null;
    }

    String describe() {
      if (!exists) {
        return "the standby has no such slot";
      }
      return "the standby shows synced="
          + synced
          + " temporary="
          + temporary
          + " confirmed_flush_lsn="
          + confirmedFlush
          + (invalidation == null ? "" : " invalidation_reason=" + invalidation);
    }
  }

  private static Connection connect(EmbeddedPostgresServer server) throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", EmbeddedPostgresServer.USER);
    props.setProperty("password", EmbeddedPostgresServer.PASSWORD);
    props.setProperty("ApplicationName", APPLICATION_NAME);
    props.setProperty("connectTimeout", "3");
    props.setProperty("socketTimeout", "30");
    return DriverManager.getConnection(server.jdbcUrl(), props);
  }

  private static void closeQuietly(EmbeddedPostgresServer server, RuntimeException failure) {
    if (server == null) {
      return;
    }
    try {
      server.close();
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  private static void pause() {
    try {
      Thread.sleep(POLL_INTERVAL.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StackException("Interrupted while waiting for the replicated PostgreSQL.", e);
    }
  }

  private static long millisSince(long t0) {
    return (System.nanoTime() - t0) / 1_000_000;
  }
}
