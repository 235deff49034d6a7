package dev.ordinal.relay.internal;

import dev.ordinal.messaging.DatabaseSettings;
import dev.ordinal.relay.RelayException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL session-level advisory lock held on a connection of its own: whoever holds it is the
 * relay that streams. PostgreSQL releases it when the holder's session ends, so a killed leader
 * frees it as soon as its connection closes.
 */
public final class LeaderLock implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LeaderLock.class);

  /** First half of the two-int advisory lock key: "ORDN". */
  static final int NAMESPACE = 0x4F52444E;

  private final DatabaseSettings db;
  private final int key;
  private Connection connection;
  private boolean held;

  public LeaderLock(DatabaseSettings db, String slotName) {
    this.db = db;
    this.key = slotName.hashCode();
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
      Properties props = new Properties();
      props.setProperty("user", db.user());
      props.setProperty("password", db.password());
      props.setProperty("connectTimeout", "5");
      props.setProperty("socketTimeout", "10");
      props.setProperty("tcpKeepAlive", "true");
      props.setProperty("ApplicationName", "ordinal-relay-lock");
      connection = DriverManager.getConnection(db.jdbcUrl(), props);
      held =
          Boolean.TRUE.equals(
              DSL.using(connection)
                  .fetchValue(
                      DSL.field(
                          "pg_try_advisory_lock({0}, {1})",
                          Boolean.class, DSL.val(NAMESPACE), DSL.val(key))));
      if (!held) {
        closeConnection();
      }
      return held;
    } catch (SQLException | RuntimeException e) {
      release();
      throw new RelayException(
          "Could not try the relay's leader lock: " + EngineRun.rootMessage(e), e);
    }
  }

  /** True while the session holding the lock answers. */
  public synchronized boolean isAlive() {
    try {
      return held && connection != null && connection.isValid(5);
    } catch (SQLException e) {
      return false;
    }
  }

  /** Gives the lock up by ending its session. */
  public synchronized void release() {
    held = false;
    closeConnection();
  }

  private void closeConnection() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        log.debug("Closing the leader lock's connection: {}", e.getMessage());
      }
      connection = null;
    }
  }

  @Override
  public void close() {
    release();
  }
}
