package dev.ordinal.cli.bench;

import dev.ordinal.messaging.DatabaseSettings;
import dev.ordinal.relay.OutboxRelay;
import dev.ordinal.relay.RelayConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * The CDC relay in a JVM of its own, for the latency and idle-cost runs of {@code bench relay}: its
 * figures are then the relay's, not shared with the bench's writers, consumer and broker threads,
 * and its CPU is read from {@code /proc}. The child prints {@code STREAMING} once it streams and
 * closes the relay when its standard input ends.
 */
public final class RelayProcess implements AutoCloseable {
  static final String PASSWORD_ENV = "ORDINAL_BENCH_DB_PASSWORD";
  static final String READY = "STREAMING";

  /**
   * When set, every relay process records a JFR profile ({@code settings=profile}) into this
   * directory, one file per process, written when it exits ({@code bench relay --relay-jfr}).
   */
  private static volatile Path jfrDir;

  private final Process process;
  private final OutputStream stdin;

  /** Records a JFR profile of every relay process started from now on into {@code dir}. */
  public static void recordProfilesIn(Path dir) {
    jfrDir = dir;
  }

  /** Entry point of the child: url user bootstrap schema topicPrefix slot pollMillis. */
  public static void main(String[] a) throws Exception {
    DatabaseSettings db = new DatabaseSettings(a[0], a[1], System.getenv(PASSWORD_ENV));
    RelayConfig config =
        RelayConfig.builder(db.withSchema(a[3]), a[2], a[3], a[4])
            .slot(a[5], a[5], true)
            .instanceId(a[5])
            .pollInterval(Duration.ofMillis(Long.parseLong(a[6])))
            .build();
    try (OutboxRelay relay = new OutboxRelay(config, new SimpleMeterRegistry()).start()) {
      relay.awaitStreaming(RelayBench.STREAMING_TIMEOUT);
      System.out.println(READY);
      System.out.flush();
      // until the bench closes our standard input
      while (System.in.read() >= 0) {
        // nothing to read but the end
      }
    }
  }

  private RelayProcess(Process process) {
    this.process = process;
    this.stdin = process.getOutputStream();
  }

  /** Starts the child and waits until it streams. */
  static RelayProcess start(
      DatabaseSettings db,
      String bootstrap,
      String schema,
      String topicPrefix,
      String slot,
      Duration pollInterval)
      throws IOException, InterruptedException {
    return start(db, bootstrap, schema, topicPrefix, slot, pollInterval, null);
  }

  /** As above, pinned to {@code cores} ({@code taskset -c}) when not null. */
  static RelayProcess start(
      DatabaseSettings db,
      String bootstrap,
      String schema,
      String topicPrefix,
      String slot,
      Duration pollInterval,
      String cores)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    if (cores != null) {
      cmd.addAll(List.of("taskset", "-c", cores));
    }
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx512m");
    Path jfr = jfrDir;
    if (jfr != null) {
      cmd.add(
          "-XX:StartFlightRecording=settings=profile,dumponexit=true,filename="
              + jfr.resolve("relay-" + schema + ".jfr").toAbsolutePath());
    }
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(RelayProcess.class.getName());
    cmd.add(db.urlWithoutPassword());
    cmd.add(db.user());
    cmd.add(bootstrap);
    cmd.add(schema);
    cmd.add(topicPrefix);
    cmd.add(slot);
    cmd.add(Long.toString(pollInterval.toMillis()));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    // the password by the environment, never on a command line others can read
    pb.environment().put(PASSWORD_ENV, db.effectivePassword());
    // its log file of its own (<ORDINAL_HOME>/logs/bench-relay-<slot>.log), not the bench's
    pb.environment().put("ORDINAL_LOG_NAME", "bench-relay-" + slot);
    Process p = pb.start();
    RelayProcess child = new RelayProcess(p);
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    List<String> seen = new ArrayList<>();
    long deadline = System.nanoTime() + RelayBench.STREAMING_TIMEOUT.plusSeconds(30).toNanos();
    String line;
    while ((line = out.readLine()) != null) {
      if (line.equals(READY)) {
        // the rest of its output (its log) goes to a file, so it never blocks on a pipe and
        // can be read after a run
        Path log = Path.of(System.getProperty("java.io.tmpdir"), "ordinal-bench-" + slot + ".log");
        List<String> before = List.copyOf(seen);
        Thread drain =
            new Thread(
                () -> {
                  try (var w = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
                    for (String l : before) {
                      w.write(l);
                      w.newLine();
                    }
                    String l;
                    while ((l = out.readLine()) != null) {
                      w.write(l);
                      w.newLine();
                      w.flush();
                    }
                  } catch (IOException ignored) {
                    // the child is gone
                  }
                },
                "relay-process-output");
        drain.setDaemon(true);
        drain.start();
        return child;
      }
      seen.add(line);
      if (seen.size() > 40) {
        seen.remove(0);
      }
      if (System.nanoTime() > deadline) {
        break;
      }
    }
    child.close();
    throw new IOException(
        "The relay process did not stream; its last lines:\n" + String.join("\n", seen));
  }

  /** The child's CPU time so far, in clock ticks (utime + stime of /proc/<pid>/stat). */
  OptionalLong cpuTicks() {
    try {
      String s = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
      String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
      return OptionalLong.of(Long.parseLong(f[11]) + Long.parseLong(f[12]));
    } catch (IOException | RuntimeException e) {
      return OptionalLong.empty();
    }
  }

  @Override
  public void close() throws InterruptedException {
    try {
      stdin.close();
    } catch (IOException ignored) {
      // already gone
    }
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
