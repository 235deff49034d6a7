package dev.ordinal.lab.bench;

import dev.ordinal.messaging.db.DatabaseSettings;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;

/**
 * What the database does while nobody writes: committed and rolled-back transactions of the
 * database ({@code pg_stat_database}) and, when PostgreSQL runs on this host, the CPU time of its
 * processes (the postmaster, its live children, and the children it has reaped, from {@code
 * /proc}). Reads on a session of its own, one autocommit statement per sample (so each sample
 * itself adds one transaction, in the baseline as everywhere else).
 *
 * <p>PostgreSQL 15+ backends flush their statistics at most once a second, so a window's count is
 * accurate to about one second of activity at each end; windows of 10 s keep that near 10%.
 */
final class DatabaseLoad implements AutoCloseable {
  // USER_HZ: the unit of utime/stime in /proc/<pid>/stat, 100 on every Linux ABI
  private static final double TICKS_PER_SECOND = 100;
  private static final Path PROC = Path.of("/proc");
  private static final String INSUFFICIENT_PRIVILEGE = "42501";

  /** One reading; {@code cpuTicks} is empty when PostgreSQL's processes are not visible here. */
  record Sample(long nanos, long transactions, OptionalLong cpuTicks, long jvmCpuNanos) {}

  /**
   * The difference between two samples.
   *
   * @param cpuPercent CPU of all PostgreSQL processes in percent of one core, or null when unknown
   * @param jvmCpuPercent CPU of this JVM (every thread: the bench's, a relay's, the in-process
   *     broker's) in percent of one core
   */
  record Rate(double transactionsPerSecond, Double cpuPercent, double jvmCpuPercent) {
    Rate minus(Rate baseline) {
      Double cpu =
          cpuPercent == null || baseline.cpuPercent == null
              ? null
              : cpuPercent - baseline.cpuPercent;
      return new Rate(
          transactionsPerSecond - baseline.transactionsPerSecond,
          cpu,
          jvmCpuPercent - baseline.jvmCpuPercent);
    }
  }

  private final Connection connection;
  private final DSLContext dsl;
  private final Integer postmasterPid;

  DatabaseLoad(DatabaseSettings db) throws SQLException {
    this.connection = DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
    this.dsl = DSL.using(connection, SQLDialect.POSTGRES);
    Integer backend = dsl.fetchValue(DSL.field("pg_backend_pid()", Integer.class));
    this.postmasterPid = backend == null ? null : localPostmaster(backend);
  }

  /** True when the CPU of PostgreSQL's processes can be read (the server runs on this host). */
  boolean seesCpu() {
    return postmasterPid != null;
  }

  Sample sample() {
    Long transactions =
        dsl.select(DSL.field("xact_commit + xact_rollback", Long.class))
            .from(DSL.table(DSL.name("pg_catalog", "pg_stat_database")))
            .where(
                DSL.field(DSL.name("datname"), String.class)
                    .eq(DSL.field("current_database()", String.class)))
            .fetchOne(0, Long.class);
    return new Sample(
        System.nanoTime(), transactions == null ? 0 : transactions, cpuTicks(), jvmCpuNanos());
  }

  /**
   * Leaves PostgreSQL with no background work that would be counted as a relay's: vacuums and
   * analyzes the database (after a DROP SCHEMA ... CASCADE, autovacuum would vacuum the catalogs, a
   * transaction per table, in the next window; tables the role does not own are skipped with a
   * warning), then checkpoints (a spread checkpoint after heavy writes costs CPU for minutes; a
   * role without the right to checkpoint skips it), then flushes this session's statistics (VACUUM
   * runs a transaction per table, and a session that has just flushed keeps the next ones for up to
   * 10 s, which would land in the next window).
   */
  void quiesce() {
    dsl.execute("vacuum (analyze)");
    try {
      dsl.execute("checkpoint");
    } catch (DataAccessException e) {
      if (!INSUFFICIENT_PRIVILEGE.equals(e.sqlState())) {
        throw e;
      }
    }
    Integer version =
        dsl.fetchValue(DSL.field("current_setting('server_version_num')::int", Integer.class));
    if (version != null && version >= 150000) {
      dsl.fetchValue(DSL.field("pg_stat_force_next_flush()"));
    }
  }

  /**
   * Samples, waits {@code window} (the measurement itself, not a wait for a condition), samples.
   */
  Rate measure(Duration window) throws InterruptedException {
    Sample a = sample();
    Thread.sleep(window.toMillis());
    return between(a, sample());
  }

  static Rate between(Sample a, Sample b) {
    double seconds = (b.nanos() - a.nanos()) / 1e9;
    Double cpu = null;
    if (a.cpuTicks().isPresent() && b.cpuTicks().isPresent()) {
      cpu = cpuPercent(b.cpuTicks().getAsLong() - a.cpuTicks().getAsLong(), seconds);
    }
    return new Rate(
        (b.transactions() - a.transactions()) / seconds,
        cpu,
        100 * (b.jvmCpuNanos() - a.jvmCpuNanos()) / 1e9 / seconds);
  }

  private static long jvmCpuNanos() {
    return ManagementFactory.getOperatingSystemMXBean()
            instanceof com.sun.management.OperatingSystemMXBean os
        ? os.getProcessCpuTime()
        : 0;
  }

  /** CPU ticks ({@code /proc/<pid>/stat}) used over {@code seconds}, in percent of one core. */
  static double cpuPercent(long ticks, double seconds) {
    return 100 * ticks / TICKS_PER_SECOND / seconds;
  }

  /** A process's own CPU time so far (utime + stime) in ticks; empty when gone or unreadable. */
  static OptionalLong ownCpuTicks(long pid) {
    long[] stat = stat(pid);
    return stat == null ? OptionalLong.empty() : OptionalLong.of(stat[1] + stat[2]);
  }

  private OptionalLong cpuTicks() {
    if (postmasterPid == null) {
      return OptionalLong.empty();
    }
    long[] postmaster = stat(postmasterPid);
    Map<Integer, long[]> children = children();
    if (postmaster == null || children == null) {
      return OptionalLong.empty();
    }
    // the postmaster's own time, plus what its exited children used (cutime, cstime)
    long ticks = postmaster[1] + postmaster[2] + postmaster[3] + postmaster[4];
    for (long[] child : children.values()) {
      ticks += child[1] + child[2];
    }
    return OptionalLong.of(ticks);
  }

  /**
   * The postmaster and its live children (backends, walsenders, background workers), empty when
   * PostgreSQL does not run on this host: for pinning them to cores.
   */
  List<Integer> postgresPids() {
    List<Integer> pids = new ArrayList<>();
    if (postmasterPid != null) {
      pids.add(postmasterPid);
      Map<Integer, long[]> children = children();
      if (children != null) {
        pids.addAll(children.keySet());
      }
    }
    return pids;
  }

  /** The postmaster's live children by pid, with their stat; null when /proc cannot be listed. */
  private Map<Integer, long[]> children() {
    Map<Integer, long[]> children = new HashMap<>();
    try (DirectoryStream<Path> processes = Files.newDirectoryStream(PROC, "[0-9]*")) {
      for (Path p : processes) {
        int pid = Integer.parseInt(p.getFileName().toString());
        long[] child = stat(pid);
        if (child != null && child[0] == postmasterPid) {
          children.put(pid, child);
        }
      }
    } catch (IOException e) {
      return null;
    }
    return children;
  }

  /** ppid, utime, stime, cutime, cstime of a process, or null when it is gone or unreadable. */
  private static long[] stat(long pid) {
    try {
      String s = Files.readString(PROC.resolve(pid + "/stat"), StandardCharsets.US_ASCII);
      // the command name, in parentheses, may contain spaces: fields start after the last ')'
      String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
      // f[0] is field 3 (state): ppid is field 4, utime..cstime are fields 14..17
      return new long[] {
        Long.parseLong(f[1]),
        Long.parseLong(f[11]),
        Long.parseLong(f[12]),
        Long.parseLong(f[13]),
        Long.parseLong(f[14])
      };
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** The postmaster's pid when {@code backendPid} is a PostgreSQL process on this host. */
  private static Integer localPostmaster(int backendPid) {
    long[] backend = stat(backendPid);
    if (backend == null || !isPostgres(backendPid) || !isPostgres((int) backend[0])) {
      return null;
    }
    return (int) backend[0];
  }

  private static boolean isPostgres(int pid) {
    try {
      return Files.readString(PROC.resolve(pid + "/comm"), StandardCharsets.US_ASCII)
          .startsWith("postgres");
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }
}
