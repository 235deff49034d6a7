package dev.ordinal.messaging.inbox.internal;

import static dev.ordinal.messaging.inbox.internal.PriorityLanes.Decision.ALL;
import static dev.ordinal.messaging.inbox.internal.PriorityLanes.Decision.OTHERS_TURN;
import static dev.ordinal.messaging.inbox.internal.PriorityLanes.Decision.PRIORITY_ONLY;
import static dev.ordinal.messaging.inbox.internal.PriorityLanes.Probe.NONE_WAITING;
import static dev.ordinal.messaging.inbox.internal.PriorityLanes.Probe.NO_ANSWER;
import static dev.ordinal.messaging.inbox.internal.PriorityLanes.Probe.WAITING;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.inbox.internal.PriorityLanes.Decision;
import dev.ordinal.messaging.inbox.internal.PriorityLanes.Probe;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The lanes on a clock the test moves, in milliseconds: max pause 500, probe every 100. */
class PriorityLanesTest {
  private long nowNanos;
  private int probes;
  private final PriorityLanes lanes =
      new PriorityLanes(Duration.ofMillis(500), Duration.ofMillis(100), () -> nowNanos);

  /** Moves the clock to {@code millis}, then polls: what the lanes decide. */
  private Decision decideAt(
      long millis, boolean priorityInHand, boolean othersInHand, Probe found) {
    nowNanos = TimeUnit.MILLISECONDS.toNanos(millis);
    return lanes.decide(
        priorityInHand,
        othersInHand,
        () -> {
          probes++;
          return found;
        });
  }

  @Test
  void withNothingWaitingOnThePriorityLaneEverythingRunsAndTheProbeRunsEvery100Ms() {
    assertThat(decideAt(0, false, true, NONE_WAITING)).isEqualTo(ALL);
    assertThat(probes).isEqualTo(1);
    assertThat(decideAt(99, false, true, NONE_WAITING)).isEqualTo(ALL);
    assertThat(probes).isEqualTo(1);
    assertThat(decideAt(100, false, true, NONE_WAITING)).isEqualTo(ALL);
    assertThat(probes).isEqualTo(2);
    assertThat(decideAt(150, false, false, NONE_WAITING)).isEqualTo(ALL);
    assertThat(probes).isEqualTo(2);
  }

  @Test
  void priorityRecordsInHandAreProbedAtEveryPoll() {
    decideAt(0, true, false, NONE_WAITING);
    decideAt(1, true, false, NONE_WAITING);
    assertThat(decideAt(2, true, false, NONE_WAITING)).isEqualTo(ALL);
    assertThat(probes).isEqualTo(3);
  }

  @Test
  void theOthersWaitWhilePriorityRecordsWaitThenGetTheirTurnAfter500Ms() {
    assertThat(decideAt(1_000, true, true, WAITING)).isEqualTo(PRIORITY_ONLY);
    assertThat(decideAt(1_200, true, false, WAITING)).isEqualTo(PRIORITY_ONLY);
    assertThat(decideAt(1_499, true, false, WAITING)).isEqualTo(PRIORITY_ONLY);
    // 500 ms held back: the others get a poll's records, whatever waits
    assertThat(decideAt(1_500, true, false, WAITING)).isEqualTo(ALL);
    assertThat(probes).isEqualTo(4);
  }

  @Test
  void theOthersTurnLastsUntilTheirRecordsCameThenThePriorityLaneIsServedAgain() {
    decideAt(0, true, true, WAITING);
    assertThat(decideAt(500, true, false, WAITING)).isEqualTo(ALL);
    // their records are not in this poll yet: still their turn, and nothing is probed
    assertThat(decideAt(510, true, false, WAITING)).isEqualTo(OTHERS_TURN);
    assertThat(decideAt(520, false, true, WAITING)).isEqualTo(OTHERS_TURN);
    assertThat(probes).isEqualTo(2);
    // the turn is over: the priority lane holds them back again, for a fresh 500 ms
    assertThat(decideAt(530, true, false, WAITING)).isEqualTo(PRIORITY_ONLY);
    assertThat(decideAt(1_029, true, false, WAITING)).isEqualTo(PRIORITY_ONLY);
    assertThat(decideAt(1_030, true, false, WAITING)).isEqualTo(ALL);
  }

  @Test
  void theOthersTurnEndsAfter500MsEvenWithoutTheirRecords() {
    decideAt(0, true, true, WAITING);
    assertThat(decideAt(500, true, false, WAITING)).isEqualTo(ALL);
    assertThat(decideAt(999, true, false, WAITING)).isEqualTo(OTHERS_TURN);
    assertThat(decideAt(1_000, true, false, WAITING)).isEqualTo(OTHERS_TURN);
    assertThat(decideAt(1_001, true, false, WAITING)).isEqualTo(PRIORITY_ONLY);
  }

  @Test
  void whenThePriorityLaneEmptiesTheOthersResumeAndTheNextPauseStartsAfresh() {
    assertThat(decideAt(0, true, true, WAITING)).isEqualTo(PRIORITY_ONLY);
    assertThat(decideAt(300, true, false, NONE_WAITING)).isEqualTo(ALL);
    assertThat(decideAt(400, true, true, WAITING)).isEqualTo(PRIORITY_ONLY);
    // 500 ms after 0 but only 400 after this pause began
    assertThat(decideAt(500, true, false, WAITING)).isEqualTo(PRIORITY_ONLY);
    assertThat(decideAt(900, true, false, WAITING)).isEqualTo(ALL);
  }

  @Test
  void aProbeTheBrokerDidNotAnswerKeepsTheLanesAsTheyAre() {
    assertThat(decideAt(0, true, true, WAITING)).isEqualTo(PRIORITY_ONLY);
    assertThat(decideAt(50, false, false, NO_ANSWER)).isEqualTo(PRIORITY_ONLY);
    assertThat(decideAt(60, false, false, NONE_WAITING)).isEqualTo(ALL);
    assertThat(decideAt(200, false, true, NO_ANSWER)).isEqualTo(ALL);
    assertThat(probes).isEqualTo(4);
  }

  @Test
  void theClockMayStartAtZeroOrBelow() {
    assertThat(decideAt(-5_000, false, true, WAITING)).isEqualTo(PRIORITY_ONLY);
    assertThat(decideAt(-4_500, true, false, WAITING)).isEqualTo(ALL);
    assertThat(decideAt(-4_499, false, true, WAITING)).isEqualTo(OTHERS_TURN);
    assertThat(probes).isEqualTo(2);
  }
}
