package dev.ordinal.relay;

import dev.ordinal.messaging.db.DatabaseSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A relay in a JVM of its own, so a test can kill it with SIGKILL (no shutdown hook, no offset
 * flush: a real crash). It prints {@code LEADER}/{@code STANDBY} on each change of role and {@code
 * STREAMING} once it streams.
 */
final class RelayChild implements AutoCloseable {
  private final Process process;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  final String instanceId;

  /** Entry point of the child JVM: url user password bootstrap schema prefix slot pub instance. */
  public static void main(String[] a) throws Exception {
    RelayConfig config =
        RelayConfig.builder(new DatabaseSettings(a[0], a[1], a[2]), a[3], a[4], a[5])
            .slot(a[6], a[7], false)
            .createPublication(false)
            .instanceId(a[8])
            .heartbeatInterval(Duration.ofSeconds(1))
            .leaderRetryInterval(Duration.ofMillis(500))
            .build();
    OutboxRelay relay = new OutboxRelay(config, new SimpleMeterRegistry()).start();
    boolean wasLeader = false;
    boolean streaming = false;
    System.out.println("STANDBY");
    while (true) {
      boolean leader = relay.isLeader();
      if (leader != wasLeader) {
        System.out.println(leader ? "LEADER" : "STANDBY");
        wasLeader = leader;
        streaming = false;
      }
      if (leader && !streaming) {
        try {
          relay.awaitStreaming(Duration.ofMillis(200));
          System.out.println("STREAMING");
          streaming = true;
        } catch (RelayException notYet) {
          // keep waiting
        }
      }
      System.out.flush();
      TimeUnit.MILLISECONDS.sleep(50);
    }
  }

  private RelayChild(Process process, String instanceId) {
    this.process = process;
    this.instanceId = instanceId;
    Thread pump =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  lines.add(line);
                  if (line.contains(" WARN ")
                      || line.contains(" ERROR ")
                      || line.contains(" INFO ")
                      || line.startsWith("Exception in thread")
                      || line.startsWith("Caused by")) {
                    // the child's log and a failed start, in the test's report, for when a run goes
                    // wrong
                    System.out.println("[relay " + instanceId + "] " + line);
                  }
                }
              } catch (Exception ignored) {
                // the child is gone
              }
            },
            "relay-child-" + instanceId);
    pump.setDaemon(true);
    pump.start();
  }

  static RelayChild start(RelayFixture fx, String instanceId) throws Exception {
    List<String> cmd =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m",
            "-cp",
            System.getProperty("java.class.path"),
            RelayChild.class.getName(),
            fx.relayDb.jdbcUrl(),
            fx.relayDb.user(),
            fx.relayDb.password(),
            fx.ns.stack().kafkaBootstrap(),
            fx.ns.schema(),
            fx.ns.topicPrefix(),
            fx.slot(),
            fx.ns.name() + "_pub",
            instanceId);
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    return new RelayChild(p, instanceId);
  }

  /** Waits for a line; true when it came in time. Lines before it are consumed. */
  boolean await(String line, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      String next = lines.poll(left, TimeUnit.NANOSECONDS);
      if (next == null) {
        return false;
      }
      if (next.equals(line)) {
        return true;
      }
    }
  }

  /**
   * The one of {@code a} and {@code b} that says LEADER first, or null when neither does in time.
   */
  static RelayChild awaitLeader(RelayChild a, RelayChild b, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (a.await("LEADER", Duration.ofMillis(200))) {
        return a;
      }
      if (b.await("LEADER", Duration.ofMillis(200))) {
        return b;
      }
    }
    return null;
  }

  /** True when {@code line} is among the lines received so far (not consumed). */
  boolean saw(String line) {
    return lines.contains(line);
  }

  /** SIGKILL, and wait until the process is gone. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  /** SIGSTOP: the process is frozen, its sockets stay open (as in a paused VM). */
  void freeze() throws Exception {
    signal("-STOP");
  }

  /** SIGCONT: the frozen process runs on. */
  void thaw() throws Exception {
    signal("-CONT");
  }

  private void signal(String signal) throws Exception {
    Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid())).start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IllegalStateException("kill " + signal + " " + process.pid() + " failed");
    }
  }

  boolean isAlive() {
    return process.isAlive();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      kill();
    }
  }
}
