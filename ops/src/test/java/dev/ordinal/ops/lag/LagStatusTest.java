package dev.ordinal.ops.lag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ordinal.messaging.ConfigurationException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every status rule, with synthetic samples on a window of 5 min and a stall time of 1 min. */
class LagStatusTest {
  static final LagStatusConfig CONFIG =
      new LagStatusConfig(Duration.ofMinutes(5), Duration.ofMinutes(1));
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  /** Samples every {@code step} from T0: committed[i] and end[i]. */
  static List<LagSample> samples(Duration step, long[] committed, long[] end) {
    List<LagSample> out = new ArrayList<>();
    for (int i = 0; i < committed.length; i++) {
      out.add(new LagSample(T0.plus(step.multipliedBy(i)), committed[i], end[i]));
    }
    return out;
  }

  static LagStatus classify(List<LagSample> samples) {
    return LagStatusTracker.classify(samples, samples.get(samples.size() - 1).at(), CONFIG);
  }

  static LagStatus classify(Duration step, long[] committed, long[] end) {
    return classify(samples(step, committed, end));
  }

  static final Duration S10 = Duration.ofSeconds(10);

  @Test
  void noLagIsOkFromTheFirstSample() {
    assertThat(classify(S10, new long[] {7}, new long[] {7})).isEqualTo(LagStatus.OK);
  }

  @Test
  void aFirstSampleWithLagHasNothingToCompareWith() {
    assertThat(classify(S10, new long[] {3}, new long[] {7})).isEqualTo(LagStatus.UNKNOWN);
  }

  @Test
  void anIdleTopicWithNoLagIsOkNeverStoppedEvenAfterThreeWindows() {
    Duration step = Duration.ofMinutes(1);
    long[] same = new long[16]; // 15 minutes of nothing moving
    java.util.Arrays.fill(same, 42);
    assertThat(classify(step, same, same)).isEqualTo(LagStatus.OK);

    // the same through the tracker, which prunes to the window
    LagStatusTracker tracker = new LagStatusTracker(CONFIG);
    LagReport last = null;
    for (int i = 0; i <= 15; i++) {
      last = tracker.update(snapshot(T0.plus(step.multipliedBy(i)), 42L, 42L));
    }
    assertThat(last.status(KEY)).isEqualTo(LagStatus.OK);
    assertThat(last.status("g")).isEqualTo(LagStatus.OK);
  }

  @Test
  void lagSmallerThanAtTheStartOfTheWindowWhileCommittingIsCatchingUp() {
    // end grows 10 per step, committed 30 per step: lag 100, 80, 60, 40
    assertThat(classify(S10, new long[] {0, 30, 60, 90}, new long[] {100, 110, 120, 130}))
        .isEqualTo(LagStatus.CATCHING_UP);
  }

  @Test
  void lagLargerThanAtTheStartOfTheWindowIsFallingBehind() {
    // committed 5 per step, end 20 per step: lag 10, 25, 40
    assertThat(classify(S10, new long[] {0, 5, 10}, new long[] {10, 30, 50}))
        .isEqualTo(LagStatus.FALLING_BEHIND);
  }

  @Test
  void aSteadyLagWhileCommittingKeepsPaceAndIsOk() {
    assertThat(classify(S10, new long[] {0, 20, 40}, new long[] {10, 30, 50}))
        .isEqualTo(LagStatus.OK);
  }

  @Test
  void aCommittedOffsetFrozenForTheStallTimeWithLagIsStalled() {
    // frozen at 5 from T0 to T0+60s, lag 5 then 15
    List<LagSample> s =
        List.of(
            new LagSample(T0, 5L, 10L),
            new LagSample(T0.plusSeconds(30), 5L, 12L),
            new LagSample(T0.plusSeconds(60), 5L, 20L));
    assertThat(classify(s)).isEqualTo(LagStatus.STALLED);
    // one second short of the stall time it is still only falling behind
    List<LagSample> shorter =
        List.of(new LagSample(T0, 5L, 10L), new LagSample(T0.plusSeconds(59), 5L, 20L));
    assertThat(classify(shorter)).isEqualTo(LagStatus.FALLING_BEHIND);
  }

  @Test
  void frozenForLessThanTheWindowIsStalledForTheWholeWindowStopped() {
    List<LagSample> shorter =
        List.of(
            new LagSample(T0, 5L, 10L),
            new LagSample(T0.plus(Duration.ofMinutes(5)).minusSeconds(1), 5L, 10L));
    assertThat(classify(shorter)).isEqualTo(LagStatus.STALLED);
    List<LagSample> window =
        List.of(new LagSample(T0, 5L, 10L), new LagSample(T0.plus(Duration.ofMinutes(5)), 5L, 10L));
    assertThat(classify(window)).isEqualTo(LagStatus.STOPPED);
  }

  @Test
  void theTrackerSaysStoppedOnlyAfterWatchingAWholeWindowAndKeepsSayingIt() {
    LagStatusTracker tracker = new LagStatusTracker(CONFIG);
    List<LagStatus> seen = new ArrayList<>();
    for (int i = 0; i <= 12; i++) { // every 30 s for 6 min, frozen at 5 of 10, so lag 5
      seen.add(statusAt(tracker, T0.plusSeconds(30L * i), 5L, 10L));
    }
    assertThat(seen.get(0)).isEqualTo(LagStatus.UNKNOWN);
    assertThat(seen.get(1)).isEqualTo(LagStatus.OK); // 30 s, same lag: not yet judged frozen
    assertThat(seen.subList(2, 10)).containsOnly(LagStatus.STALLED); // 1 min .. 4 min 30 s
    assertThat(seen.get(10)).isEqualTo(LagStatus.STOPPED); // 5 min
    // the history is pruned to the window, and keeps the sample at its start as the anchor
    assertThat(seen.subList(11, 13)).containsOnly(LagStatus.STOPPED);
  }

  @Test
  void aCommittedOffsetThatWentBackIsRewoundForOneWindowThenJudgedAsUsual() {
    LagStatusTracker tracker = new LagStatusTracker(CONFIG);
    tracker.update(snapshot(T0, 50L, 50L));
    assertThat(statusAt(tracker, T0.plusSeconds(10), 20L, 50L)).isEqualTo(LagStatus.REWOUND);
    // back at the end again, still within the window: the rewind is still shown
    assertThat(statusAt(tracker, T0.plusSeconds(60), 50L, 50L)).isEqualTo(LagStatus.REWOUND);
    // more than a window after the rewind: idle and no lag
    assertThat(statusAt(tracker, T0.plusSeconds(311), 50L, 50L)).isEqualTo(LagStatus.OK);
  }

  @Test
  void withoutACommittedOffsetAnEmptyPartitionIsOkAndOneWithRecordsUnknown() {
    assertThat(classify(List.of(new LagSample(T0, null, 0L)))).isEqualTo(LagStatus.OK);
    assertThat(classify(List.of(new LagSample(T0, null, 9L)))).isEqualTo(LagStatus.UNKNOWN);
  }

  @Test
  void aCommittedOffsetPastTheLogEndOrAnUnknownLogEndIsUnknown() {
    assertThat(classify(S10, new long[] {12, 12}, new long[] {10, 10}))
        .isEqualTo(LagStatus.UNKNOWN);
    assertThat(classify(List.of(new LagSample(T0, 3L, null)))).isEqualTo(LagStatus.UNKNOWN);
  }

  @Test
  void aGroupTakesTheWorstStatusOfItsPartitions() {
    LagStatusTracker tracker = new LagStatusTracker(CONFIG);
    PartitionLag idle = PartitionLag.of("t", 1, 9L, 9L);
    tracker.update(
        new LagSnapshot(
            T0, List.of(new GroupLag("g", "Stable", List.of(), List.of(p0(5L, 10L), idle)))));
    LagReport r =
        tracker.update(
            new LagSnapshot(
                T0.plusSeconds(90),
                List.of(new GroupLag("g", "Stable", List.of(), List.of(p0(5L, 10L), idle)))));
    assertThat(r.status(KEY)).isEqualTo(LagStatus.STALLED);
    assertThat(r.status(new PartitionKey("g", "t", 1))).isEqualTo(LagStatus.OK);
    assertThat(r.status("g")).isEqualTo(LagStatus.STALLED);
    assertThat(LagStatus.worst(List.of())).isEqualTo(LagStatus.OK);
  }

  @Test
  void aPartitionThatLeavesTheSnapshotsStartsAgainWhenItComesBack() {
    LagStatusTracker tracker = new LagStatusTracker(CONFIG);
    tracker.update(snapshot(T0, 5L, 10L));
    tracker.update(new LagSnapshot(T0.plusSeconds(30), List.of()));
    assertThat(statusAt(tracker, T0.plusSeconds(400), 5L, 10L)).isEqualTo(LagStatus.UNKNOWN);
  }

  @Test
  void aSnapshotAtTheSameInstantReplacesTheLastAndAClockGoingBackStartsAgain() {
    LagStatusTracker tracker = new LagStatusTracker(CONFIG);
    tracker.update(snapshot(T0, 0L, 100L));
    tracker.update(snapshot(T0.plusSeconds(10), 50L, 100L));
    // same instant, new figures: compared with T0, not with the replaced sample
    assertThat(statusAt(tracker, T0.plusSeconds(10), 60L, 100L)).isEqualTo(LagStatus.CATCHING_UP);
    assertThat(statusAt(tracker, T0.minusSeconds(10), 60L, 100L)).isEqualTo(LagStatus.UNKNOWN);
  }

  @Test
  void aStallTimeNotShorterThanTheWindowIsRefusedWithTheReason() {
    assertThatThrownBy(() -> new LagStatusConfig(Duration.ofMinutes(1), Duration.ofMinutes(1)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "stallAfter PT1M must be shorter than the window PT1M, so that a partition is STALLED"
                + " before it is STOPPED");
    assertThatThrownBy(() -> new LagStatusConfig(Duration.ZERO, Duration.ofSeconds(1)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("window");
  }

  @Test
  void partitionLagKeepsTheLagEqualToEndMinusCommittedAndTheTimeLagFromTheRecord() {
    PartitionLag p = PartitionLag.of("t", 0, 3L, 10L);
    assertThat(p.lag()).isEqualTo(7);
    assertThat(p.timeLag()).isNull();
    PartitionLag read = p.withNextRecord(T0, T0.plusMillis(1500));
    assertThat(read.timeLag()).isEqualTo(Duration.ofMillis(1500));
    assertThat(read.nextRecordTimestamp()).isEqualTo(T0);
    assertThat(PartitionLag.of("t", 0, 10L, 10L).timeLag()).isEqualTo(Duration.ZERO);
    assertThatThrownBy(() -> new PartitionLag("t", 0, 3L, 10L, 6L, null, null, null, null, null))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("lag must be logEndOffset - committedOffset (7)");
  }

  static final PartitionKey KEY = new PartitionKey("g", "t", 0);

  static PartitionLag p0(Long committed, Long end) {
    return PartitionLag.of("t", 0, committed, end);
  }

  /** The status of {@code KEY} after {@code tracker} is given a snapshot of it at {@code at}. */
  static LagStatus statusAt(LagStatusTracker tracker, Instant at, Long committed, Long end) {
    return tracker.update(snapshot(at, committed, end)).status(KEY);
  }

  static LagSnapshot snapshot(Instant at, Long committed, Long end) {
    return new LagSnapshot(
        at, List.of(new GroupLag("g", "Stable", List.of(), List.of(p0(committed, end)))));
  }
}
