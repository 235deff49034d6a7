package dev.ordinal.messaging.inbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.runtime.Backoff;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Partition backoff on a clock the test moves, in milliseconds. */
class PartitionBackoffTest {
  static final TopicPartition P0 = new TopicPartition("orders", 0);
  static final TopicPartition P1 = new TopicPartition("orders", 1);

  private long nowNanos;

  private void at(long millis) {
    nowNanos = TimeUnit.MILLISECONDS.toNanos(millis);
  }

  /** Nothing is due a millisecond before {@code millis}; at {@code millis}, {@code p} alone is. */
  private void assertDueAt(PartitionBackoff b, long millis, TopicPartition p) {
    at(millis - 1);
    assertThat(b.due()).isEmpty();
    at(millis);
    assertThat(b.due()).containsExactly(p);
  }

  /** 100 ms doubling to 10 s, no jitter, at most 1 s while a server is away. */
  private PartitionBackoff exact() {
    return new PartitionBackoff(
        new Backoff(Duration.ofMillis(100), 2.0, 0.0, Duration.ofSeconds(10)),
        Duration.ofSeconds(1),
        () -> nowNanos);
  }

  /** {@link #exact()} at 0 ms, where {@code P0} failed twice in a row (100 and 200 ms). */
  private PartitionBackoff p0FailedTwiceAt0() {
    PartitionBackoff b = exact();
    at(0);
    b.failed(P0, false);
    b.failed(P0, false);
    return b;
  }

  @Test
  void aFailedPartitionResumesExactlyWhenItsWaitIsOver() {
    PartitionBackoff b = exact();
    at(1_000);
    assertThat(b.failed(P0, false)).isEqualTo(Duration.ofMillis(100));
    assertThat(b.isWaiting(P0)).isTrue();
    assertDueAt(b, 1_100, P0);
    assertThat(b.isWaiting(P0)).isFalse();
    assertThat(b.due()).isEmpty();
  }

  @Test
  void eachFailureInARowDoublesTheWaitUpToTheMax() {
    PartitionBackoff b = exact();
    at(0);
    List<Long> waits =
        java.util.stream.IntStream.range(0, 9)
            .mapToObj(i -> b.failed(P0, false).toMillis())
            .toList();
    assertThat(waits)
        .containsExactly(100L, 200L, 400L, 800L, 1_600L, 3_200L, 6_400L, 10_000L, 10_000L);
    assertDueAt(b, 10_000, P0);
  }

  @Test
  void aRecordThatPassedStartsTheNextRunOfFailuresFromTheShortestWait() {
    PartitionBackoff b = p0FailedTwiceAt0();
    assertThat(b.failed(P0, false)).isEqualTo(Duration.ofMillis(400));
    assertThat(b.anyFailing()).isTrue();
    at(400);
    assertThat(b.due()).containsExactly(P0);
    // resumed but not through yet: still failing
    assertThat(b.anyFailing()).isTrue();
    b.passed(P0);
    assertThat(b.anyFailing()).isFalse();
    at(500);
    assertThat(b.failed(P0, false)).isEqualTo(Duration.ofMillis(100));
  }

  @Test
  void aServerNotAnsweringWaitsAtMostOneSecond() {
    PartitionBackoff b = exact();
    at(0);
    for (int i = 0; i < 4; i++) {
      b.failed(P0, true); // 100, 200, 400, 800
    }
    assertThat(b.failed(P0, true)).isEqualTo(Duration.ofSeconds(1));
    assertThat(b.failed(P0, false)).isEqualTo(Duration.ofMillis(3_200));
    assertThat(b.failed(P0, true)).isEqualTo(Duration.ofSeconds(1));
    assertDueAt(b, 1_000, P0);
  }

  @Test
  void partitionsWaitIndependently() {
    PartitionBackoff b = p0FailedTwiceAt0();
    at(50);
    assertThat(b.failed(P1, false)).isEqualTo(Duration.ofMillis(100));
    at(150);
    assertThat(b.due()).containsExactly(P1);
    assertThat(b.isWaiting(P0)).isTrue();
    at(200);
    assertThat(b.due()).containsExactly(P0);
  }

  @Test
  void forgottenPartitionsNeitherWaitNorCount() {
    PartitionBackoff b = p0FailedTwiceAt0();
    b.failed(P1, false);
    b.forget(List.of(P0));
    assertThat(b.isWaiting(P0)).isFalse();
    at(10_000);
    assertThat(b.due()).containsExactly(P1);
    assertThat(b.failed(P0, false)).isEqualTo(Duration.ofMillis(100));
    b.clear();
    assertThat(b.anyFailing()).isFalse();
    assertThat(b.due()).isEmpty();
  }

  @Test
  void withJitterTheWaitStaysInItsBoundsAndTheResumeFollowsTheWaitToTheMillisecond() {
    PartitionBackoff b =
        new PartitionBackoff(
            Backoff.exponential(Duration.ofMillis(100), Duration.ofSeconds(10)),
            Duration.ofSeconds(1),
            () -> nowNanos);
    for (int i = 0; i < 200; i++) {
      at(0);
      b.clear();
      long first = b.failed(P0, false).toMillis();
      assertThat(first).isBetween(50L, 150L);
      assertDueAt(b, first, P0);
      assertThat(b.failed(P0, false).toMillis()).isBetween(100L, 300L);
    }
  }
}
