package dev.ordinal.lab.devstack;

import java.util.Objects;

/**
 * Real server faults on a stack this JVM owns: PostgreSQL and the Kafka broker are stopped, started
 * and restarted under the clients that use them, and PostgreSQL's connections are terminated. Only
 * the embedded stack offers it ({@link Stack#control()}); servers we did not start are never
 * touched.
 *
 * <p>What the caller can rely on:
 *
 * <ul>
 *   <li>Every method blocks until its action is complete, within a bound (a few minutes at the very
 *       worst, about a second usually): a stopped server's ports refuse connections; a started
 *       PostgreSQL answers {@code select 1} on its JDBC URL; a started broker lists itself and
 *       every partition of every topic has a leader. On failure, or when the action does not fit
 *       the server's state (stopping a stopped server, starting a running one, anything after the
 *       stack's {@code close()}), it throws {@link StackException} and changes nothing it can avoid
 *       changing.
 *   <li>A server comes back on the same address with the same data: the same PostgreSQL port, data
 *       directory and server settings ({@code wal_level=logical} and the rest); the same broker and
 *       controller ports, log directory and cluster id. Clients keep their configured JDBC URL and
 *       bootstrap address and reconnect; committed rows, replication slots, topic records and
 *       committed consumer offsets survive. The port is free while the server is down; another
 *       process taking it meanwhile makes the start fail.
 *   <li>Clients see what a real fault shows them: connections opened before a stop or restart are
 *       broken (a JDBC connection fails on its next use; Kafka clients reconnect by themselves).
 *   <li>Actions are serialized per server, and the stack's {@code close()} works in any state,
 *       including while a server is stopped.
 *   <li>Each action logs one INFO line with its duration.
 * </ul>
 */
public interface ServerControl {

  /** How a server goes down. */
  enum Shutdown {
    /**
     * PostgreSQL: {@code pg_ctl -m fast} (clients are disconnected, open transactions rolled back,
     * a shutdown checkpoint written). Kafka: the broker's own shutdown (controlled shutdown, logs
     * flushed, clean-shutdown marker written).
     */
    CLEAN,
    /**
     * As a crash leaves the server. PostgreSQL: {@code pg_ctl -m immediate} (every process quits at
     * once, no checkpoint; the next start replays the WAL). Kafka, which runs in this JVM and
     * cannot be killed like a process: the broker shuts down as with {@link #CLEAN}, then its
     * clean-shutdown marker is deleted, so the next start recovers its logs and rebuilds producer
     * state from them, and the controller handles the broker's registration as after an unclean
     * shutdown. Data written before is not lost in either case (the operating system still has it),
     * as with a killed process.
     */
    CRASH
  }

  /**
   * Which PostgreSQL client connections {@link #terminateBackends(Backends)} ends. A {@code null}
   * component matches any value; a given one must equal the backend's {@code application_name} or
   * user name exactly.
   */
  record Backends(String applicationName, String user) {
    /** Every client connection (and replication connection) except the terminating one. */
    public static Backends all() {
      return new Backends(null, null);
    }

    /** Connections whose {@code application_name} is {@code name}. */
    public static Backends withApplicationName(String name) {
      return new Backends(Objects.requireNonNull(name, "name"), null);
    }

    /** Connections logged in as {@code user}. */
    public static Backends ofUser(String user) {
      return new Backends(null, Objects.requireNonNull(user, "user"));
    }

    /** These connections, and only those of {@code user} among them. */
    public Backends andUser(String user) {
      return new Backends(applicationName, Objects.requireNonNull(user, "user"));
    }
  }

  /** Restarts PostgreSQL with a fast shutdown; see {@link #restartPostgres(Shutdown)}. */
  default void restartPostgres() {
    restartPostgres(Shutdown.CLEAN);
  }

  /**
   * Stops PostgreSQL as {@code how} says and starts it again on the same port, data directory and
   * settings; returns when it accepts connections. Every connection opened before is broken.
   */
  void restartPostgres(Shutdown how);

  /** Stops PostgreSQL with a fast shutdown; see {@link #stopPostgres(Shutdown)}. */
  default void stopPostgres() {
    stopPostgres(Shutdown.CLEAN);
  }

  /** Stops PostgreSQL as {@code how} says; returns when its port refuses connections. */
  void stopPostgres(Shutdown how);

  /**
   * Starts the stopped PostgreSQL on its former port, data directory and settings; returns when it
   * accepts connections.
   */
  void startPostgres();

  /** Whether PostgreSQL answers {@code select 1} now (a probe of a few seconds at most). */
  boolean isPostgresUp();

  /**
   * Terminates ({@code pg_terminate_backend}) every client backend and replication connection that
   * {@code which} matches, in every database, except the connection this method uses, and waits
   * until they have exited. The server keeps running; the clients' next use of those connections
   * fails.
   *
   * @return how many were terminated (a backend that ends by itself meanwhile is not counted)
   */
  int terminateBackends(Backends which);

  /** Terminates every client connection; see {@link #terminateBackends(Backends)}. */
  default int terminateBackends() {
    return terminateBackends(Backends.all());
  }

  /** Stops the broker cleanly; see {@link #stopKafka(Shutdown)}. */
  default void stopKafka() {
    stopKafka(Shutdown.CLEAN);
  }

  /** Stops the broker as {@code how} says; returns when its ports refuse connections. */
  void stopKafka(Shutdown how);

  /**
   * Starts the stopped broker on its former ports, log directory and cluster id; returns when it
   * answers and every partition has a leader.
   */
  void startKafka();

  /**
   * Stops the broker cleanly and starts it again ({@link #stopKafka}, then {@link #startKafka}).
   */
  default void restartKafka() {
    restartKafka(Shutdown.CLEAN);
  }

  /** Stops the broker as {@code how} says and starts it again. */
  default void restartKafka(Shutdown how) {
    stopKafka(how);
    startKafka();
  }

  /** Whether the broker answers a metadata request now (a probe of a few seconds at most). */
  boolean isKafkaUp();
}
