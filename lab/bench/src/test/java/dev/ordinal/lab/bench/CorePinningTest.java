package dev.ordinal.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class CorePinningTest {
  /**
   * The split layout pins this JVM itself; giving the cores back must give all of them, not the one
   * this JVM counts while pinned (a full {@code ./ordinal bench} ran every scenario after the
   * relay's on one core that way).
   */
  @Test
  void undoGivesEveryPinnedProcessAllTheCoresItHadBefore() throws Exception {
    assumeTrue(CorePinning.available(), "taskset is not installed");
    assumeTrue(Runtime.getRuntime().availableProcessors() >= 2, "needs two cores");
    long self = ProcessHandle.current().pid();
    String before = allowed(self);
    Process child = new ProcessBuilder("sleep", "60").start();
    try {
      CorePinning pinning = CorePinning.split(self, "0", List.of((int) child.pid()), "1");
      try {
        assertThat(allowed(self)).isEqualTo("0");
        assertThat(allowed(child.pid())).isEqualTo("1");
        org.awaitility.Awaitility.await()
            .atMost(java.time.Duration.ofSeconds(2))
            .until(() -> Runtime.getRuntime().availableProcessors() == 1);
      } finally {
        assertThat(pinning.undo()).isTrue();
      }
      assertThat(allowed(self)).isEqualTo(before);
      assertThat(allowed(child.pid())).isEqualTo(before);
      // the JVM caches its processor count for a few milliseconds
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(2))
          .until(() -> Runtime.getRuntime().availableProcessors() >= 2);
    } finally {
      child.destroyForcibly();
    }
  }

  /** {@code Cpus_allowed_list} of the process, e.g. {@code 0-1}. */
  private static String allowed(long pid) throws Exception {
    return Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")).stream()
        .filter(l -> l.startsWith("Cpus_allowed_list:"))
        .map(l -> l.substring(l.indexOf(':') + 1).trim())
        .findFirst()
        .orElseThrow();
  }
}
