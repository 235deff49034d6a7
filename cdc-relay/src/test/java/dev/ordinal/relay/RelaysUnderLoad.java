package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.testkit.TestNamespace;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A failover under load: a {@link RelayFixture}, a streaming leader and its standby, a reader of
 * the topic, and 4 outbox writers committing in the background (every 11th transaction rolled
 * back). Closing it closes the reader, then both relays, then the fixture.
 */
final class RelaysUnderLoad implements AutoCloseable {
  final RelayFixture fx;
  final RelayChild leader;
  final RelayChild standby;
  final TopicReader reader;
  final CompletableFuture<OutboxWriters.Result> writing;
  private final LeaderAndStandby relays;

  private RelaysUnderLoad(
      RelayFixture fx,
      LeaderAndStandby relays,
      TopicReader reader,
      CompletableFuture<OutboxWriters.Result> writing) {
    this.fx = fx;
    this.relays = relays;
    this.leader = relays.leader;
    this.standby = relays.standby;
    this.reader = reader;
    this.writing = writing;
  }

  /**
   * Starts relays {@code a} and {@code b} (see {@link LeaderAndStandby#start}), then {@code events}
   * writes at {@code ratePerSecond}, and returns once the reader has read {@code readFirst} records
   * (or 60 s have passed).
   */
  static RelaysUnderLoad start(
      TestNamespace ns, String a, String b, int events, double ratePerSecond, int readFirst)
      throws Exception {
    RelayFixture fx = RelayFixture.create(ns);
    try {
      LeaderAndStandby relays = LeaderAndStandby.start(fx, a, b);
      try {
        TopicReader reader = new TopicReader(ns.stack().kafkaBootstrap(), fx.topic());
        try {
          CompletableFuture<OutboxWriters.Result> writing =
              OutboxWriters.inBackground(fx.owner, 4, events, 11, ratePerSecond);
          reader.readUntil(r -> r.size() >= readFirst, Duration.ofSeconds(60));
          return new RelaysUnderLoad(fx, relays, reader, writing);
        } catch (Exception | AssertionError e) {
          reader.close();
          throw e;
        }
      } catch (Exception | AssertionError e) {
        relays.close();
        throw e;
      }
    } catch (Exception | AssertionError e) {
      fx.close();
      throw e;
    }
  }

  /** How a test takes the leader out (kills it, freezes it). */
  interface LeaderStop {
    void stop(RelayChild leader) throws Exception;
  }

  /**
   * Takes the leader out with {@code stop} and asserts, as {@code description}, that the standby
   * streams within {@code atMost}; returns how long after the stop it did.
   */
  Duration takeOver(LeaderStop stop, Duration atMost, String description) throws Exception {
    stop.stop(leader);
    long stoppedAt = System.nanoTime();
    assertThat(standby.await("STREAMING", atMost)).as(description).isTrue();
    return Duration.ofNanos(System.nanoTime() - stoppedAt);
  }

  @Override
  public void close() throws Exception {
    try (fx;
        relays;
        reader) {
      // closed in reverse: the reader, the relays, the fixture
    }
  }
}
