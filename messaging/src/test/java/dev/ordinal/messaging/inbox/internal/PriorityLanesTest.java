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

  private void at(long millis) {
    nowNanos = TimeUnit.MILLISECONDS.toNanos(millis);
  }

  private Decision poll(boolean priorityInHand, boolean othersInHand, Probe found) {
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
    at(0);
    assertThat(poll(false, true, NONE_WAITING)).isEqualTo(ALL);
    assertThat(probes).isEqualTo(1);
    at(99);
    assertThat(poll(false, true, NONE_WAITING)).isEqualTo(ALL);
    assertThat(probes).isEqualTo(1);
    at(100);
    assertThat(poll(false, true, NONE_WAITING)).isEqualTo(ALL);
    assertThat(probes).isEqualTo(2);
    at(150);
    assertThat(poll(false, false, NONE_WAITING)).isEqualTo(ALL);
    assertThat(probes).isEqualTo(2);
  }

  @Test
  void priorityRecordsInHandAreProbedAtEveryPoll() {
    at(0);
    poll(true, false, NONE_WAITING);
    at(1);
    poll(true, false, NONE_WAITING);
    at(2);
    assertThat(poll(true, false, NONE_WAITING)).isEqualTo(ALL);
    assertThat(probes).isEqualTo(3);
  }

  @Test
  void theOthersWaitWhilePriorityRecordsWaitThenGetTheirTurnAfter500Ms() {
    at(1_000);
    assertThat(poll(true, true, WAITING)).isEqualTo(PRIORITY_ONLY);
    at(1_200);
    assertThat(poll(true, false, WAITING)).isEqualTo(PRIORITY_ONLY);
    at(1_499);
    assertThat(poll(true, false, WAITING)).isEqualTo(PRIORITY_ONLY);
    // 500 ms held back: the others get a poll's records, whatever waits
    at(1_500);
    assertThat(poll(true, false, WAITING)).isEqualTo(ALL);
    assertThat(probes).isEqualTo(4);
  }

  @Test
  void theOthersTurnLastsUntilTheirRecordsCameThenThePriorityLaneIsServedAgain() {
    at(0);
    poll(true, true, WAITING);
    at(500);
    assertThat(poll(true, false, WAITING)).isEqualTo(ALL);
    // their records are not in this poll yet: still their turn, and nothing is probed
    at(510);
    assertThat(poll(true, false, WAITING)).isEqualTo(OTHERS_TURN);
    at(520);
    assertThat(poll(false, true, WAITING)).isEqualTo(OTHERS_TURN);
    assertThat(probes).isEqualTo(2);
    // the turn is over: the priority lane holds them back again, for a fresh 500 ms
    at(530);
    assertThat(poll(true, false, WAITING)).isEqualTo(PRIORITY_ONLY);
    at(1_029);
    assertThat(poll(true, false, WAITING)).isEqualTo(PRIORITY_ONLY);
    at(1_030);
    assertThat(poll(true, false, WAITING)).isEqualTo(ALL);
  }

  @Test
  void theOthersTurnEndsAfter500MsEvenWithoutTheirRecords() {
    at(0);
    poll(true, true, WAITING);
    at(500);
    assertThat(poll(true, false, WAITING)).isEqualTo(ALL);
    at(999);
    assertThat(poll(true, false, WAITING)).isEqualTo(OTHERS_TURN);
    at(1_000);
    assertThat(poll(true, false, WAITING)).isEqualTo(OTHERS_TURN);
    at(1_001);
    assertThat(poll(true, false, WAITING)).isEqualTo(PRIORITY_ONLY);
  }

  @Test
  void whenThePriorityLaneEmptiesTheOthersResumeAndTheNextPauseStartsAfresh() {
    at(0);
    assertThat(poll(true, true, WAITING)).isEqualTo(PRIORITY_ONLY);
    at(300);
    assertThat(poll(true, false, NONE_WAITING)).isEqualTo(ALL);
    at(400);
    assertThat(poll(true, true, WAITING)).isEqualTo(PRIORITY_ONLY);
    // 500 ms after 0 but only 400 after this pause began
    at(500);
    assertThat(poll(true, false, WAITING)).isEqualTo(PRIORITY_ONLY);
    at(900);
    assertThat(poll(true, false, WAITING)).isEqualTo(ALL);
  }

  @Test
  void aProbeTheBrokerDidNotAnswerKeepsTheLanesAsTheyAre() {
    at(0);
    assertThat(poll(true, true, WAITING)).isEqualTo(PRIORITY_ONLY);
    at(50);
    assertThat(poll(false, false, NO_ANSWER)).isEqualTo(PRIORITY_ONLY);
    at(60);
    assertThat(poll(false, false, NONE_WAITING)).isEqualTo(ALL);
    at(200);
    assertThat(poll(false, true, NO_ANSWER)).isEqualTo(ALL);
    assertThat(probes).isEqualTo(4);
  }

  @Test
  void theClockMayStartAtZeroOrBelow() {
    at(-5_000);
    assertThat(poll(false, true, WAITING)).isEqualTo(PRIORITY_ONLY);
    at(-4_500);
    assertThat(poll(true, false, WAITING)).isEqualTo(ALL);
    at(-4_499);
    assertThat(poll(false, true, WAITING)).isEqualTo(OTHERS_TURN);
    assertThat(probes).isEqualTo(2);
  }
}
