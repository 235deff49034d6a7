package dev.ordinal.billing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CallFenceTest {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

  @Test
  void aCallIsCoveredOnlyWhileTheLeaseHasItsTimeoutLeft() {
    CallFence fence = CallFence.startingNow(Duration.ofSeconds(30), nanos::get);
    assertThat(fence.covers(Duration.ofSeconds(5))).isTrue();
    nanos.addAndGet(Duration.ofSeconds(25).toNanos());
    assertThat(fence.remaining()).isEqualTo(Duration.ofSeconds(5));
    assertThat(fence.covers(Duration.ofSeconds(5))).as("exactly the timeout left").isTrue();
    nanos.addAndGet(1);
    assertThat(fence.covers(Duration.ofSeconds(5))).as("one nanosecond short").isFalse();
    assertThat(fence.covers(Duration.ofSeconds(4))).isTrue();
  }

  @Test
  void aProcessFrozenPastItsLeaseFindsItGone() {
    CallFence fence = CallFence.startingNow(Duration.ofSeconds(3), nanos::get);
    nanos.addAndGet(Duration.ofMinutes(2).toNanos()); // a SIGSTOP, a VM pause
    assertThat(fence.remaining()).isEqualTo(Duration.ofSeconds(-117));
    assertThat(fence.covers(Duration.ZERO)).isFalse();
  }

  @Test
  void theMonotonicClockWrapsWithoutHarm() {
    nanos.set(Long.MAX_VALUE - Duration.ofSeconds(1).toNanos());
    CallFence fence = CallFence.startingNow(Duration.ofSeconds(10), nanos::get);
    nanos.addAndGet(Duration.ofSeconds(2).toNanos()); // overflows, as System.nanoTime may
    assertThat(fence.remaining()).isEqualTo(Duration.ofSeconds(8));
    assertThat(fence.covers(Duration.ofSeconds(8))).isTrue();
    assertThat(fence.covers(Duration.ofSeconds(9))).isFalse();
  }
}
