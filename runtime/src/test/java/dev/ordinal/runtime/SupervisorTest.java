package dev.ordinal.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SupervisorTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private Supervisor supervisor() {
    return new Supervisor(
        "svc", registry, Duration.ofMillis(5), Duration.ofMillis(20), Clock.systemUTC());
  }

  private double restarts(String loop) {
    return registry.get("ordinal.loop.restarts").tag("loop", loop).counter().count();
  }

  private double up(String loop) {
    return registry.get("ordinal.loop.up").tag("loop", loop).gauge().value();
  }

  @Test
  void aLoopThatThrowsRunsAgainAndIsCountedUntilItWorks() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    try (Supervisor s = supervisor()) {
      Supervisor.SupervisedLoop loop =
          s.start(
              "flaky",
              ctx -> {
                if (runs.incrementAndGet() <= 3) {
                  throw new IllegalStateException(
                      "connection refused", new java.io.IOException("port 5432"));
                }
                while (ctx.running()) {
                  ctx.healthy();
                  ctx.await(Duration.ofMillis(5));
                }
              });
      assertThat(loop.awaitRunning(Duration.ofSeconds(5))).isTrue();
      assertThat(runs.get()).isEqualTo(4);
      assertThat(restarts("flaky")).isEqualTo(3.0);
      assertThat(up("flaky")).isEqualTo(1.0);
      LoopHealth h = loop.health();
      assertThat(h.state()).isEqualTo(LoopState.RUNNING);
      assertThat(h.restarts()).isEqualTo(3);
      assertThat(h.lastError())
          .isEqualTo("IllegalStateException: connection refused; caused by IOException: port 5432");
      assertThat(h.lastErrorAt()).isNotNull();
      assertThat(s.allRunning()).isTrue();
    }
    assertThat(up("flaky")).isEqualTo(0.0);
  }

  @Test
  void aLoopThatEndsOnItsOwnIsAFailureAndRunsAgain() {
    AtomicInteger runs = new AtomicInteger();
    try (Supervisor s = supervisor()) {
      s.start("quits", ctx -> runs.incrementAndGet());
      await().atMost(5, TimeUnit.SECONDS).until(() -> runs.get() >= 3);
      assertThat(s.health().get(0).lastError())
          .isEqualTo("IllegalStateException: the loop ended on its own");
    }
  }

  @Test
  void backOffInPlaceCountsARestartAndHealthyClearsTheState() throws Exception {
    CountDownLatch failedOnce = new CountDownLatch(1);
    CountDownLatch goOn = new CountDownLatch(1);
    try (Supervisor s = supervisor()) {
      Supervisor.SupervisedLoop loop =
          s.start(
              "consumer",
              ctx -> {
                ctx.healthy();
                ctx.backOff(new RuntimeException("database down"));
                failedOnce.countDown();
                goOn.await();
                while (ctx.running()) {
                  ctx.healthy();
                  ctx.await(Duration.ofMillis(5));
                }
              });
      assertThat(failedOnce.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(loop.state()).isEqualTo(LoopState.BACKING_OFF);
      assertThat(restarts("consumer")).isEqualTo(1.0);
      assertThat(s.allRunning()).isFalse();
      goOn.countDown();
      assertThat(loop.awaitRunning(Duration.ofSeconds(5))).isTrue();
      assertThat(restarts("consumer")).isEqualTo(1.0);
    }
  }

  @Test
  void retryNowEndsTheBackoffOfAFailedLoopAtOnce() throws Exception {
    AtomicInteger runs = new AtomicInteger();
    Supervisor s =
        new Supervisor(
            "svc", registry, Duration.ofHours(1), Duration.ofHours(1), Clock.systemUTC());
    try (s) {
      Supervisor.SupervisedLoop loop =
          s.start(
              "waits-long",
              ctx -> {
                if (runs.incrementAndGet() == 1) {
                  throw new IllegalStateException("server down");
                }
                while (ctx.running()) {
                  ctx.healthy();
                  ctx.await(Duration.ofMillis(5));
                }
              });
      await().atMost(5, TimeUnit.SECONDS).until(() -> loop.state() == LoopState.BACKING_OFF);
      s.retryNow();
      assertThat(loop.awaitRunning(Duration.ofSeconds(5)))
          .as("ran again within 5 s, not 1 h")
          .isTrue();
      assertThat(runs.get()).isEqualTo(2);
    }
  }

  @Test
  void closeStopsEveryLoopAndWakesABlockedOne() throws Exception {
    CountDownLatch blocked = new CountDownLatch(1);
    Supervisor s = supervisor();
    Supervisor.SupervisedLoop periodic =
        s.start("periodic", Loop.every(Duration.ofHours(1), () -> {}));
    Supervisor.SupervisedLoop blocking =
        s.start(
            "blocking",
            ctx -> {
              CountDownLatch wake = new CountDownLatch(1);
              ctx.onStop(wake::countDown);
              ctx.healthy();
              blocked.countDown();
              wake.await();
            });
    assertThat(blocked.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(periodic.awaitRunning(Duration.ofSeconds(5))).isTrue();
    long t0 = System.nanoTime();
    s.close();
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Supervisor.STOP_TIMEOUT);
    assertThat(periodic.state()).isEqualTo(LoopState.STOPPED);
    assertThat(blocking.state()).isEqualTo(LoopState.STOPPED);
    assertThat(restarts("blocking")).isEqualTo(0.0);
  }

  @Test
  void aLoopStuckInACallThatDoesNotReturnShowsAsStalledUntilItMovesAgain() throws Exception {
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    try (Supervisor supervisor =
        new Supervisor("svc", new io.micrometer.core.instrument.simple.SimpleMeterRegistry())
            .stallAfter(Duration.ofMillis(300))) {
      Supervisor.SupervisedLoop loop =
          supervisor.start(
              "stuck",
              ctx -> {
                ctx.healthy();
                release.await(); // a call that does not return, until released
                while (ctx.running()) {
                  ctx.healthy();
                  ctx.await(Duration.ofMillis(20));
                }
              });
      await().atMost(5, TimeUnit.SECONDS).until(() -> loop.state() == LoopState.STALLED);
      assertThat(supervisor.health().get(0).state()).isEqualTo(LoopState.STALLED);
      release.countDown();
      await().atMost(5, TimeUnit.SECONDS).until(() -> loop.state() == LoopState.RUNNING);

      // waiting is not being stuck: a loop in its wait for longer than the bound stays RUNNING
      Supervisor.SupervisedLoop idle =
          supervisor.start(
              "idle",
              ctx -> {
                while (ctx.running()) {
                  ctx.healthy();
                  ctx.await(Duration.ofSeconds(2));
                }
              });
      await().atMost(5, TimeUnit.SECONDS).until(() -> idle.state() == LoopState.RUNNING);
      await()
          .during(Duration.ofMillis(900))
          .atMost(Duration.ofSeconds(3))
          .until(() -> idle.state() == LoopState.RUNNING);
    }
  }
}
