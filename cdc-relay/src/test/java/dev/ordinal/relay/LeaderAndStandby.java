package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

/**
 * Two relay JVMs for one slot once one of them has become the leader (within 90 s) and streams
 * (within 90 s more); closing it kills both.
 */
final class LeaderAndStandby implements AutoCloseable {
  final RelayChild leader;
  final RelayChild standby;

  private LeaderAndStandby(RelayChild leader, RelayChild standby) {
    this.leader = leader;
    this.standby = standby;
  }

  /**
   * Starts relays {@code a} and {@code b} for {@code fx}'s slot and waits for a streaming leader.
   */
  static LeaderAndStandby start(RelayFixture fx, String a, String b) throws Exception {
    RelayChild first = RelayChild.start(fx, a);
    RelayChild second = null;
    try {
      second = RelayChild.start(fx, b);
      RelayChild leader = RelayChild.awaitLeader(first, second, Duration.ofSeconds(90));
      assertThat(leader).as("one relay became leader").isNotNull();
      assertThat(leader.await("STREAMING", Duration.ofSeconds(90))).isTrue();
      return new LeaderAndStandby(leader, leader == first ? second : first);
    } catch (Exception | AssertionError e) {
      first.close();
      if (second != null) {
        second.close();
      }
      throw e;
    }
  }

  @Override
  public void close() throws InterruptedException {
    try {
      standby.close();
    } finally {
      leader.close();
    }
  }
}
