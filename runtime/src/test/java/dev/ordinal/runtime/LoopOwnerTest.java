package dev.ordinal.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LoopOwnerTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private static Loop untilStopped(CountDownLatch started, CountDownLatch stopped) {
    return ctx -> {
      ctx.healthy();
      started.countDown();
      try {
        while (ctx.running()) {
          ctx.healthy();
          ctx.await(Duration.ofMillis(5));
        }
      } finally {
        stopped.countDown();
      }
    };
  }

  @Test
  void aLoopUnderItsOwnSupervisorStopsAndItsSupervisorClosesWithIt() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch stopped = new CountDownLatch(1);
    LoopOwner owner = new LoopOwner();
    owner.startOwn("svc", registry, "job", untilStopped(started, stopped));
    assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(registry.get("ordinal.loop.up").tag("loop", "job").gauge().value()).isEqualTo(1.0);

    owner.close();

    assertThat(stopped.getCount()).isZero();
    assertThat(owner.closed()).isTrue();
    assertThat(registry.get("ordinal.loop.up").tag("loop", "job").gauge().value()).isEqualTo(0.0);
    owner.close();
  }

  @Test
  void aLoopUnderAGivenSupervisorStopsButTheSupervisorRuns() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch stopped = new CountDownLatch(1);
    try (Supervisor supervisor = new Supervisor("svc", registry)) {
      LoopOwner owner = new LoopOwner();
      owner.start(supervisor, "job", untilStopped(started, stopped));
      assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();

      owner.close();

      assertThat(stopped.getCount()).isZero();
      CountDownLatch other = new CountDownLatch(1);
      supervisor.start("other", untilStopped(other, new CountDownLatch(1)));
      assertThat(other.await(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void itStartsOnceAndNeverAfterClose() {
    try (Supervisor supervisor = new Supervisor("svc", registry)) {
      LoopOwner owner = new LoopOwner();
      owner.start(supervisor, "job", untilStopped(new CountDownLatch(1), new CountDownLatch(1)));
      assertThatThrownBy(() -> owner.startOwn("svc", registry, "job2", ctx -> {}))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("already started or closed");
      owner.close();

      LoopOwner closedFirst = new LoopOwner();
      closedFirst.close();
      assertThatThrownBy(() -> closedFirst.start(supervisor, "job3", ctx -> {}))
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("already started or closed");
    }
  }
}
