package dev.ordinal.lab.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Pins processes to cores with {@code taskset} (util-linux), every thread of each ({@code -a}), and
 * gives them all the cores back afterwards. PostgreSQL's backends forked later inherit the
 * postmaster's cores, so pinning the postmaster and its live children pins the server.
 */
final class CorePinning {
  /**
   * Every core, read before anything is pinned: once this JVM is pinned, {@link
   * Runtime#availableProcessors()} counts only its own cores, and giving "all" back from that
   * figure would keep every process on them.
   */
  private static final String ALL_CORES = "0-" + (Runtime.getRuntime().availableProcessors() - 1);

  private final List<Long> pids;

  private CorePinning(List<Long> pids) {
    this.pids = pids;
  }

  /** True when {@code taskset} is on the PATH. */
  static boolean available() {
    return ChildJvm.onPath("taskset").isPresent();
  }

  static CorePinning none() {
    return new CorePinning(List.of());
  }

  /**
   * {@code self} (the bench's JVM, with the in-process broker) to {@code selfCores}, PostgreSQL's
   * processes to {@code dbCores}.
   *
   * @throws IOException when a process could not be pinned (what was pinned is given back)
   */
  static CorePinning split(long self, String selfCores, List<Integer> postgres, String dbCores)
      throws IOException, InterruptedException {
    List<Long> pinned = new ArrayList<>();
    CorePinning p = new CorePinning(pinned);
    if (!taskset(selfCores, self)) {
      throw new IOException("taskset could not pin the bench's JVM to cores " + selfCores);
    }
    pinned.add(self);
    for (int pid : postgres) {
      // a backend that ended meanwhile cannot be pinned, and needs not be
      if (taskset(dbCores, pid)) {
        pinned.add((long) pid);
      }
    }
    if (postgres.isEmpty() || !pinned.contains((long) postgres.get(0))) {
      p.undo();
      throw new IOException("taskset could not pin PostgreSQL (it must run on this host)");
    }
    return p;
  }

  /** Gives every pinned process all the cores again; false when one of them refused. */
  boolean undo() throws InterruptedException {
    boolean ok = true;
    for (long pid : pids) {
      if (ProcessHandle.of(pid).isPresent() && !taskset(ALL_CORES, pid)) {
        ok = false;
      }
    }
    return ok;
  }

  /**
   * Pins every thread of {@code pid}; tried three times, because {@code taskset -a} fails when one
   * of the threads it listed ends before it is pinned (a JVM starts and ends threads all the time).
   */
  private static boolean taskset(String cores, long pid) throws InterruptedException {
    for (int attempt = 0; attempt < 3; attempt++) {
      try {
        Process p =
            new ProcessBuilder("taskset", "-a", "-p", "-c", cores, Long.toString(pid))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0) {
          return true;
        }
      } catch (IOException e) {
        return false;
      }
    }
    return false;
  }
}
