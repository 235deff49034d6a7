package dev.ordinal.lab.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The chaos schedule: the faults of a run, injected one after the other by a {@link FaultInjector}
 * on a thread of its own, each at a random moment of its equal slot of the drive (or at once when
 * the previous one ran past its slot), with what the services did around each.
 */
final class FaultPlan {
  /** The shortest drive --chaos fits in: each round needs a slot of 5 s. */
  static final Duration MIN_CHAOS_DURATION = Duration.ofSeconds(10);

  private final List<FaultInjector.Fault> faults;
  private final Duration duration;
  private final Console console;
  private final List<FaultInjector.Outcome> outcomes =
      Collections.synchronizedList(new ArrayList<>());
  private volatile boolean running;
  private Thread thread;

  /** {@code faults} spread over a drive of {@code duration}. */
  FaultPlan(List<FaultInjector.Fault> faults, Duration duration, Console console) {
    this.faults = List.copyOf(faults);
    this.duration = duration;
    this.console = console;
  }

  /**
   * The faults of {@code --chaos}: a SIGKILL of the relay, a PostgreSQL restart, a SIGKILL of a
   * billing instance, the broker down for 5 s, then one more kill per 15 s of drive beyond the
   * first 60 s, alternating.
   */
  static List<FaultInjector.Fault> chaos(Duration duration) {
    List<FaultInjector.Fault> plan = new ArrayList<>();
    plan.add(FaultInjector.Fault.of(FaultInjector.Kind.KILL_RELAY));
    plan.add(FaultInjector.Fault.of(FaultInjector.Kind.PG_RESTART));
    plan.add(FaultInjector.Fault.of(FaultInjector.Kind.KILL_BILLING));
    plan.add(new FaultInjector.Fault(FaultInjector.Kind.KAFKA_DOWN, Duration.ofSeconds(5)));
    for (int i = 4; i < chaosRounds(duration); i++) {
      plan.add(
          FaultInjector.Fault.of(
              i % 2 == 0 ? FaultInjector.Kind.KILL_RELAY : FaultInjector.Kind.KILL_BILLING));
    }
    return plan;
  }

  /** Chaos rounds in a drive of {@code duration}: one per 15 s, at least 2. */
  static int chaosRounds(Duration duration) {
    return (int) Math.max(2, duration.toSeconds() / 15);
  }

  /** A fault as the output names it: {@code Kafka broker down 5 s}. */
  static String describe(FaultInjector.Fault f) {
    return f.outage().isZero()
        ? f.kind().description
        : f.kind().description + " " + Console.human(f.outage());
  }

  List<FaultInjector.Fault> faults() {
    return faults;
  }

  /** Starts injecting, on a thread of its own; nothing when the plan is empty. */
  void start(FaultInjector injector, SplittableRandom random) {
    if (faults.isEmpty()) {
      return;
    }
    running = true;
    thread = new Thread(() -> inject(injector, random), "ordinal-demo-faults");
    thread.setDaemon(true);
    thread.start();
  }

  /** True until the last fault is over (and the services ready again, or given up on). */
  boolean running() {
    return running;
  }

  /** Waits up to {@code timeout} for the last fault to be over. */
  void join(Duration timeout) throws InterruptedException {
    if (thread != null) {
      thread.join(timeout.toMillis());
    }
  }

  /** The faults injected so far, as they happened. */
  List<FaultInjector.Outcome> outcomes() {
    synchronized (outcomes) {
      return List.copyOf(outcomes);
    }
  }

  private void inject(FaultInjector injector, SplittableRandom random) {
    long start = System.nanoTime();
    long slot = duration.toMillis() / faults.size();
    try {
      for (int i = 0; i < faults.size() && !console.interrupted(); i++) {
        // a moment in [slot start + 1 s, slot middle]
        long at = i * slot + 1_000 + random.nextLong(Math.max(1, slot / 2 - 1_000));
        long wait = at - (System.nanoTime() - start) / 1_000_000;
        if (wait > 0 && console.await(Duration.ofMillis(wait))) {
          return;
        }
        outcomes.add(injector.inject(faults.get(i), random));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      console.event("fault: could not inject or undo a fault: " + e.getMessage());
    } finally {
      running = false;
    }
  }
}
