package dev.ordinal.lab.sim.internal;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;

/**
 * Delays simulated work without holding a server thread: a request waits at the gate while it is
 * held, then for its latency on one timer thread, then its work runs on that thread. Any number of
 * slow or held requests therefore cost no Jetty threads, and other requests go on meanwhile.
 */
public final class Pacer implements AutoCloseable {
  private final ScheduledExecutorService timer;
  private final Set<CompletableFuture<Void>> inFlight = ConcurrentHashMap.newKeySet();
  private final AtomicInteger held = new AtomicInteger();
  private CompletableFuture<Void> gate = CompletableFuture.completedFuture(null); // guarded by this
  private volatile boolean closed;

  public Pacer(String threadName) {
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, threadName);
              t.setDaemon(true);
              return t;
            });
  }

  /** A latency drawn uniformly from {@code [min, max]}; always one draw, so seeded runs repeat. */
  public static Duration latency(RandomGenerator random, Duration min, Duration max) {
    long span = max.toNanos() - min.toNanos();
    return min.plusNanos((long) (random.nextDouble() * span));
  }

  /**
   * Runs {@code work} on the timer thread once the gate is open (if {@code gated}) and {@code
   * delay} has passed. The future completes after the work ran, or fails with a 503 {@link
   * SimRequestException} when the pacer closes first (the work then never runs).
   */
  public CompletableFuture<Void> after(boolean gated, Duration delay, Runnable work) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    inFlight.add(done);
    done.whenComplete((v, e) -> inFlight.remove(done));
    if (closed) {
      done.completeExceptionally(stopping());
      return done;
    }
    CompletableFuture<Void> open = gated ? enterGate() : CompletableFuture.completedFuture(null);
    open.thenRun(() -> schedule(done, delay, work));
    return done;
  }

  private synchronized CompletableFuture<Void> enterGate() {
    if (!gate.isDone()) {
      held.incrementAndGet();
      gate.whenComplete((v, e) -> held.decrementAndGet());
    }
    return gate;
  }

  private void schedule(CompletableFuture<Void> done, Duration delay, Runnable work) {
    try {
      timer.schedule(() -> run(done, work), delay.toNanos(), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      done.completeExceptionally(stopping());
    }
  }

  private static void run(CompletableFuture<Void> done, Runnable work) {
    if (done.isDone()) {
      return;
    }
    try {
      work.run();
      done.complete(null);
    } catch (RuntimeException | Error e) {
      done.completeExceptionally(e);
    }
  }

  /** From now on gated requests wait until {@link #release}; requests past the gate go on. */
  public synchronized void hold() {
    if (gate.isDone()) {
      gate = new CompletableFuture<>();
    }
  }

  /** Lets every waiting gated request go on, each then taking its own latency. */
  public void release() {
    CompletableFuture<Void> g;
    synchronized (this) {
      g = gate;
    }
    g.complete(null);
  }

  /** Gated requests waiting for {@link #release}. */
  public int held() {
    return held.get();
  }

  /** Requests not yet answered: held, waiting out their latency, or being timed out. */
  public int inFlight() {
    return inFlight.size();
  }

  /**
   * Stops the timer, waits briefly for work already running, then fails every request still in
   * flight with 503 so the server can stop without waiting for them.
   */
  @Override
  public void close() {
    closed = true;
    timer.shutdownNow();
    try {
      timer.awaitTermination(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (CompletableFuture<Void> f : inFlight) {
      f.completeExceptionally(stopping());
    }
    release();
  }

  private static SimRequestException stopping() {
    return new SimRequestException(503, "STOPPING", "The simulator is stopping; retry elsewhere.");
  }
}
