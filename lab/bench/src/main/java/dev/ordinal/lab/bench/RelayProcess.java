package dev.ordinal.lab.bench;

import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.relay.OutboxRelay;
import dev.ordinal.relay.RelayConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
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
    DatabaseSettings db = new DatabaseSettings(a[0], a[1], ChildJvm.password());
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

  /**
   * Starts the child and waits until it streams; pinned to {@code cores} ({@code taskset -c}) when
   * not null.
   */
  static RelayProcess start(
      DatabaseSettings db,
      String bootstrap,
      String schema,
      String topicPrefix,
      String slot,
      Duration pollInterval,
      String cores)
      throws IOException, InterruptedException {
    Path jfr = jfrDir;
    List<String> jvmOptions =
        jfr == null
            ? List.of()
            : List.of(
                "-XX:StartFlightRecording=settings=profile,dumponexit=true,filename="
                    + jfr.resolve("relay-" + schema + ".jfr").toAbsolutePath());
    Process p =
        ChildJvm.builder(
                RelayProcess.class,
                cores,
                jvmOptions,
                db,
                "bench-relay-" + slot,
                List.of(
                    bootstrap, schema, topicPrefix, slot, Long.toString(pollInterval.toMillis())))
            .start();
    RelayProcess child = new RelayProcess(p);
    BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    List<String> seen = new ArrayList<>();
    // the child gives up by itself after RelayBench.STREAMING_TIMEOUT, and its output ends
    String line;
    while ((line = out.readLine()) != null) {
      if (line.equals(READY)) {
        // the rest of its output (only errors; its log is in its own file) is read and dropped,
        // so it never blocks on a pipe
        Thread drain =
            new Thread(
                () -> {
                  try {
                    while (out.readLine() != null) {
                      // dropped
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
    }
    child.close();
    throw new IOException(
        "The relay process did not stream; its last lines:\n" + String.join("\n", seen));
  }

  /** The child's CPU time so far, in clock ticks ({@code /proc/<pid>/stat}). */
  OptionalLong cpuTicks() {
    return DatabaseLoad.ownCpuTicks(process.pid());
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
