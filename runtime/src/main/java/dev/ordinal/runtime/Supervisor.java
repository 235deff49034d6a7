package dev.ordinal.runtime;

import dev.ordinal.runtime.internal.Errors;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * Runs a service's background loops, each on a thread of its own, and keeps them running: a loop
 * whose body throws (or returns while it should run) is logged once with the cause, counted, and
 * run again after an exponential backoff with jitter, forever. No loop thread ends silently.
 *
 * <p>What the caller can rely on:
 *
 * <ul>
 *   <li>Each loop has a {@link LoopState} and a {@link LoopHealth} (last error, since when, restart
 *       count), shown by {@code /health/ready}.
 *   <li>Metrics, tagged {@code service} and {@code loop}: gauge {@code ordinal.loop.up} (1 while
 *       {@link LoopState#RUNNING}; {@code ordinal_loop_up} in Prometheus) and counter {@code
 *       ordinal.loop.restarts} ({@code ordinal_loop_restarts_total}).
 *   <li>The backoff starts at {@link #DEFAULT_INITIAL_BACKOFF}, doubles up to {@link
 *       #DEFAULT_MAX_BACKOFF}, each wait randomised by ±50 %; a loop that reports itself {@link
 *       LoopContext#healthy() healthy} starts again from the shortest wait at its next failure.
 *   <li>{@link #retryNow()} (called when a server the service needs answers again) ends the wait of
 *       every loop backing off, so a service is back within a check interval of its server.
 *   <li>Each loop's thread has {@link LogContext#LOOP} (and {@link LogContext#INSTANCE} when given)
 *       in its log context, so each line it logs names them.
 *   <li>{@link #close()} asks every loop to stop, in reverse order of start, and waits for them
 *       within {@link #STOP_TIMEOUT} in all; a loop still running then is interrupted.
 * </ul>
 */
public final class Supervisor implements AutoCloseable {
  public static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofMillis(200);
  public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(10);
  public static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

  /**
   * How long a {@link LoopState#RUNNING} loop may go without a sign of progress ({@link
   * LoopContext#healthy()}, a {@link LoopContext#await wait}, a failure) before it shows as {@link
   * LoopState#STALLED}: far longer than any bounded call of the services' loops takes (statement
   * timeout 30 s, Kafka polls and sends of seconds), so only a call that does not return gets
   * there.
   */
  public static final Duration DEFAULT_STALL_AFTER = Duration.ofMinutes(5);

  private static final Logger log = LoggerFactory.getLogger(Supervisor.class);

  private final String service;
  private final String instance;
  private final MeterRegistry registry;
  private final Backoff backoff;
  private final Clock clock;
  private final Map<String, SupervisedLoop> loops = new LinkedHashMap<>();
  private boolean closed;
  private volatile Duration stallAfter = DEFAULT_STALL_AFTER;

  public Supervisor(String service, MeterRegistry registry) {
    this(service, registry, DEFAULT_INITIAL_BACKOFF, DEFAULT_MAX_BACKOFF, Clock.systemUTC());
  }

  /**
   * @param initialBackoff the first wait after a failure
   * @param maxBackoff the longest wait
   */
  public Supervisor(
      String service,
      MeterRegistry registry,
      Duration initialBackoff,
      Duration maxBackoff,
      Clock clock) {
    this(service, null, registry, initialBackoff, maxBackoff, clock);
  }

  /**
   * @param instance the service instance's name, in the log context ({@link LogContext#INSTANCE})
   *     of every loop's thread; null for none
   * @param initialBackoff the first wait after a failure
   * @param maxBackoff the longest wait
   */
  public Supervisor(
      String service,
      String instance,
      MeterRegistry registry,
      Duration initialBackoff,
      Duration maxBackoff,
      Clock clock) {
    if (initialBackoff.isNegative() || initialBackoff.isZero()) {
      throw new IllegalArgumentException("initialBackoff must be positive: " + initialBackoff);
    }
    if (maxBackoff.compareTo(initialBackoff) < 0) {
      throw new IllegalArgumentException("maxBackoff must not be shorter than initialBackoff");
    }
    this.service = service;
    this.instance = instance;
    this.registry = registry;
    this.backoff = Backoff.exponential(initialBackoff, maxBackoff);
    this.clock = clock;
  }

  public String service() {
    return service;
  }

  /** A loop without a sign of progress for {@code d} shows as {@link LoopState#STALLED}. */
  public Supervisor stallAfter(Duration d) {
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException("stallAfter must be positive: " + d);
    }
    this.stallAfter = d;
    return this;
  }

  public MeterRegistry registry() {
    return registry;
  }

  /**
   * Starts {@code body} as loop {@code name} on a thread of its own.
   *
   * @throws IllegalStateException when a loop of that name runs already or the supervisor is closed
   */
  public synchronized SupervisedLoop start(String name, Loop body) {
    if (closed) {
      throw new IllegalStateException("The supervisor of " + service + " is closed");
    }
    SupervisedLoop existing = loops.get(name);
    if (existing != null && existing.state() != LoopState.STOPPED) {
      throw new IllegalStateException("Loop " + name + " of " + service + " runs already");
    }
    SupervisedLoop loop = new SupervisedLoop(name, body);
    loops.put(name, loop);
    loop.thread.start();
    return loop;
  }

  /** Every loop started, in start order. */
  public synchronized List<LoopHealth> health() {
    List<LoopHealth> all = new ArrayList<>();
    for (SupervisedLoop l : loops.values()) {
      all.add(l.health());
    }
    return all;
  }

  /** True when every loop started is {@link LoopState#RUNNING}. */
  public synchronized boolean allRunning() {
    return loops.values().stream().allMatch(l -> l.state() == LoopState.RUNNING);
  }

  /**
   * Ends the backoff of every loop that waits after a failure: they run again now. For when a
   * server they need answers again; loops doing their work are not disturbed.
   */
  public void retryNow() {
    List<SupervisedLoop> all;
    synchronized (this) {
      all = new ArrayList<>(loops.values());
    }
    all.forEach(SupervisedLoop::retryNow);
  }

  /** Stops every loop, last started first; bounded by {@link #STOP_TIMEOUT} in all. */
  @Override
  public void close() {
    List<SupervisedLoop> all;
    synchronized (this) {
      closed = true;
      all = new ArrayList<>(loops.values());
    }
    for (int i = all.size() - 1; i >= 0; i--) {
      all.get(i).askToStop();
    }
    long deadline = System.nanoTime() + STOP_TIMEOUT.toNanos();
    for (int i = all.size() - 1; i >= 0; i--) {
      all.get(i).awaitStopped(deadline);
    }
  }

  /** One loop under the supervisor: a handle to see it and to stop it alone. */
  public final class SupervisedLoop implements AutoCloseable {
    private final String name;
    private final Loop body;
    private final Thread thread;
    private final Counter restarts;
    private final Object waiting = new Object();
    private boolean nudged;
    private final Context context = new Context();
    private volatile boolean stopping;
    private volatile Runnable wakeUp;
    private LoopState state = LoopState.STARTING;
    private Instant since;
    private String lastError;
    private Instant lastErrorAt;
    private int failuresInARow;
    private volatile long progressAt = System.nanoTime();
    private volatile boolean inWait;
    private boolean stallReported;

    private SupervisedLoop(String name, Loop body) {
      this.name = name;
      this.body = body;
      this.since = clock.instant();
      this.restarts =
          Counter.builder("ordinal.loop.restarts")
              .description("Times a background loop failed and ran again")
              .tags("service", service, "loop", name)
              .register(registry);
      Gauge.builder("ordinal.loop.up", this, l -> l.state() == LoopState.RUNNING ? 1 : 0)
          .description("1 while a background loop does its work")
          .tags("service", service, "loop", name)
          .register(registry);
      this.thread = new Thread(this::runForever, service + "-" + name);
      thread.setDaemon(true);
    }

    public String name() {
      return name;
    }

    /** Its state; {@link LoopState#STALLED} when RUNNING without progress for the stall bound. */
    public synchronized LoopState state() {
      if (state != LoopState.RUNNING
          || inWait
          || System.nanoTime() - progressAt <= stallAfter.toNanos()) {
        stallReported = false;
        return state;
      }
      if (!stallReported) {
        stallReported = true;
        StringBuilder where = new StringBuilder();
        for (StackTraceElement e : thread.getStackTrace()) {
          where.append("\n\tat ").append(e);
        }
        log.warn(
            "Loop {} of {} has shown no progress for more than {} (a call that does not return);"
                + " it is STALLED, and /health/live answers 503. Its thread is at:{}",
            name,
            service,
            stallAfter,
            where);
      }
      return LoopState.STALLED;
    }

    public synchronized LoopHealth health() {
      return new LoopHealth(name, state(), since, (long) restarts.count(), lastError, lastErrorAt);
    }

    /** Waits until the loop is {@link LoopState#RUNNING}; false when the wait ended first. */
    public boolean awaitRunning(Duration timeout) throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      synchronized (this) {
        while (state != LoopState.RUNNING) {
          long left = deadline - System.nanoTime();
          if (left <= 0 || state == LoopState.STOPPED) {
            return false;
          }
          wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        }
        return true;
      }
    }

    /** Stops this loop alone; bounded by {@link #STOP_TIMEOUT}. */
    @Override
    public void close() {
      askToStop();
      awaitStopped(System.nanoTime() + STOP_TIMEOUT.toNanos());
    }

    private void retryNow() {
      synchronized (this) {
        if (state != LoopState.BACKING_OFF) {
          return;
        }
      }
      synchronized (waiting) {
        nudged = true;
        waiting.notifyAll();
      }
    }

    private void askToStop() {
      stopping = true;
      synchronized (waiting) {
        waiting.notifyAll();
      }
      Runnable w = wakeUp;
      if (w != null) {
        try {
          w.run();
        } catch (RuntimeException e) {
          log.debug("Waking up loop {} of {}: {}", name, service, e.toString());
        }
      }
    }

    private void awaitStopped(long deadlineNanos) {
      try {
        thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime())));
        if (thread.isAlive()) {
          log.warn("Loop {} of {} did not stop in time; interrupting it", name, service);
          thread.interrupt();
          thread.join(TimeUnit.SECONDS.toMillis(5));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    private void runForever() {
      // every line this thread logs names its loop (and the instance): the JSON log's fields
      MDC.put(LogContext.LOOP, name);
      if (instance != null) {
        MDC.put(LogContext.INSTANCE, instance);
      }
      while (!stopping) {
        try {
          synchronized (this) {
            if (state == LoopState.BACKING_OFF) {
              setState(LoopState.STARTING);
            }
          }
          progressAt = System.nanoTime();
          body.run(context);
          if (!stopping) {
            throw new IllegalStateException("the loop ended on its own");
          }
        } catch (Throwable e) {
          if (stopping) {
            break;
          }
          if (e instanceof VirtualMachineError fatal) {
            // out of memory and the like: nothing sensible to retry
            log.error("Loop {} of {} stopped on {}", name, service, fatal.toString(), fatal);
            setState(LoopState.STOPPED);
            throw fatal;
          }
          failAndWait(e);
        } finally {
          wakeUp = null;
        }
      }
      setState(LoopState.STOPPED);
    }

    /** Logs, counts and waits; false when asked to stop during the wait. */
    private boolean failAndWait(Throwable e) {
      long wait;
      boolean first;
      String what = Errors.describe(e);
      synchronized (this) {
        record(what);
        first = failuresInARow == 1;
        wait = backoff.delay(failuresInARow).toMillis();
      }
      if (first) {
        log.warn("Loop {} of {} failed; it runs again in {} ms: {}", name, service, wait, what, e);
      } else {
        log.warn(
            "Loop {} of {} failed again ({} in a row); it runs again in {} ms: {}",
            name,
            service,
            failuresInARow,
            wait,
            what);
      }
      return context.await(Duration.ofMillis(wait));
    }

    private synchronized void record(String what) {
      progressAt = System.nanoTime();
      failuresInARow++;
      lastError = what;
      lastErrorAt = clock.instant();
      setState(LoopState.BACKING_OFF);
      restarts.increment();
    }

    private synchronized void setState(LoopState s) {
      if (state != s) {
        state = s;
        since = clock.instant();
        notifyAll();
      }
    }

    private final class Context implements LoopContext {
      @Override
      public boolean running() {
        return !stopping;
      }

      @Override
      public void healthy() {
        synchronized (SupervisedLoop.this) {
          progressAt = System.nanoTime();
          failuresInARow = 0;
          setState(LoopState.RUNNING);
        }
      }

      @Override
      public boolean backOff(Throwable cause) {
        return !stopping && failAndWait(cause);
      }

      @Override
      public void failed(Throwable cause) {
        if (!stopping) {
          record(Errors.describe(cause));
        }
      }

      @Override
      public boolean await(Duration timeout) {
        long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
        inWait = true;
        try {
          return awaitUntil(deadline);
        } finally {
          progressAt = System.nanoTime();
          inWait = false;
        }
      }

      private boolean awaitUntil(long deadline) {
        synchronized (waiting) {
          try {
            long left;
            while (!stopping && !nudged && (left = deadline - System.nanoTime()) > 0) {
              waiting.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
          } finally {
            nudged = false;
          }
        }
        return !stopping;
      }

      @Override
      public void onStop(Runnable w) {
        wakeUp = w;
        if (stopping && w != null) {
          w.run();
        }
      }
    }
  }
}
