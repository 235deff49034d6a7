package dev.ordinal.relay.internal;

import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.relay.RelayException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL session-level advisory lock held on a connection of its own: whoever holds it is the
 * relay that streams. PostgreSQL releases it when the holder's session ends, so a killed leader
 * frees it as soon as its connection closes.
 *
 * <p>The lead is a lease: the session is opened with {@code idle_session_timeout} set to the lease,
 * so PostgreSQL ends it, and frees the lock, once the holder has not checked it for that long (a
 * frozen process, a paused VM, a link cut without a reset: TCP alone would keep it for hours). The
 * holder checks every few seconds ({@link #isAlive()}); {@link #leaseHolds()} is true only while
 * less than half the lease has passed since the last check that succeeded began, by the monotonic
 * clock, which runs on while a process is stopped. So a leader that wakes after losing the lock
 * sees at once that it may no longer send, before PostgreSQL or anyone else tells it.
 */
public final class LeaderLock implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LeaderLock.class);

  /** First half of the two-int advisory lock key: "ORDN". */
  static final int NAMESPACE = 0x4F52444E;

  private final DatabaseSettings db;
  private final int key;
  private final long leaseNanos;
  private Connection connection;
  private volatile boolean held;
  private volatile long confirmedAt;

  /**
   * @param lease how long PostgreSQL keeps the lock of a holder that stopped checking it
   */
  public LeaderLock(DatabaseSettings db, String slotName, Duration lease) {
    this.db = db;
    this.key = slotName.hashCode();
    this.leaseNanos = lease.toNanos();
  }

  /**
   * True while this instance holds the lock and its last successful check began less than half the
   * lease ago: until then PostgreSQL cannot have ended the session and given the lock to another.
   */
  public boolean leaseHolds() {
    return held && System.nanoTime() - confirmedAt < leaseNanos / 2;
  }

  /**
   * Tries once; true when this instance holds the lock (now or already), false when another session
   * holds it.
   *
   * @throws RelayException when PostgreSQL could not be asked (the caller's loop backs off)
   */
  public synchronized boolean tryAcquire() {
    if (held && isAlive()) {
      return true;
    }
    release();
    try {
      Properties props = Jdbc.props(db.user(), db.password(), "ordinal-relay-lock");
      props.setProperty("tcpKeepAlive", "true");
      long asked = System.nanoTime();
      connection = DriverManager.getConnection(db.jdbcUrl(), props);
      // PostgreSQL ends the session, and frees the lock, when its holder stops checking it (a
      // SET rather than the connection's options, which an options parameter in the URL replaces)
      DSL.using(connection)
          .execute(
              "set idle_session_timeout = {0}",
              DSL.inline(TimeUnit.NANOSECONDS.toMillis(leaseNanos)));
      held =
          Boolean.TRUE.equals(
              DSL.using(connection)
                  .fetchValue(
                      DSL.field(
                          "pg_try_advisory_lock({0}, {1})",
                          Boolean.class, DSL.val(NAMESPACE), DSL.val(key))));
      if (held) {
        confirmedAt = asked;
      } else {
        closeConnection();
      }
      return held;
    } catch (SQLException | RuntimeException e) {
      release();
      throw new RelayException(
          "Could not try the relay's leader lock: " + EngineRun.rootMessage(e), e);
    }
  }

  /**
   * True while the session holding the lock answers; each answer renews the lease (the session's
   * idle time starts again).
   */
  public synchronized boolean isAlive() {
    long asked = System.nanoTime();
    try {
      boolean alive = held && connection != null && connection.isValid(5);
      if (alive) {
        confirmedAt = asked;
      }
      return alive;
    } catch (SQLException e) {
      return false;
    }
  }

  /**
   * Ends the replication connection still streaming from {@code slot}, if any: it belongs to a
   * leader that lost this lock without noticing (frozen or cut off), and would keep the slot busy
   * until {@code wal_sender_timeout}. Call only while holding the lock.
   *
   * @return the process id ended, or 0 when the slot was free
   */
  public synchronized int endStaleStream(String slot) {
    if (!held || connection == null) {
      return 0;
    }
    Integer pid =
        DSL.using(connection)
            .select(DSL.field(DSL.name("active_pid"), Integer.class))
            .from(DSL.table(DSL.name("pg_catalog", "pg_replication_slots")))
            .where(DSL.field(DSL.name("slot_name"), String.class).eq(slot))
            .and(DSL.field(DSL.name("active_pid")).isNotNull())
            .fetchOne(0, Integer.class);
    if (pid == null) {
      return 0;
    }
    // waits up to 5 s for the process to end, so the slot is free when this returns true
    Boolean ended =
        DSL.using(connection)
            .fetchValue(
                DSL.field(
                    "pg_terminate_backend({0}, {1})",
                    Boolean.class, DSL.val(pid), DSL.val(5_000L)));
    return Boolean.TRUE.equals(ended) ? pid : 0;
  }

  /** Gives the lock up by ending its session. */
  public synchronized void release() {
    held = false;
    closeConnection();
  }

  private void closeConnection() {
    Jdbc.closeQuietly(connection, log, "the leader lock's connection");
    connection = null;
  }

  @Override
  public void close() {
    release();
  }
}
