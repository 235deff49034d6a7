package dev.ordinal.runtime;

import io.micrometer.core.instrument.MeterRegistry;

/**
 * The start-once, close-once lifecycle of a component that runs one background loop: under a
 * service's {@link Supervisor} it is given (the composition root's), or under a supervisor of its
 * own that it closes with the loop (tests, tools). Components hold one and delegate {@code start}
 * and {@code close} to it, so the guard, the own supervisor and the order of closing are written
 * once.
 */
public final class LoopOwner implements AutoCloseable {
  private Supervisor.SupervisedLoop loop;
  private Supervisor own;
  private boolean started;
  private boolean closed;

  /**
   * Starts {@code body} as loop {@code name} of {@code supervisor}.
   *
   * @throws IllegalStateException when already started or closed
   */
  public synchronized void start(Supervisor supervisor, String name, Loop body) {
    checkStartable();
    loop = supervisor.start(name, body);
    started = true;
  }

  /**
   * Marks it started without a loop, for a component that has nothing to run as configured: a later
   * start is refused as after one with a loop, and {@link #close} only marks it closed.
   *
   * @throws IllegalStateException when already started or closed
   */
  public synchronized void startIdle() {
    checkStartable();
    started = true;
  }

  /**
   * Throws what {@code start} would throw for the guard, for a component that must know before it
   * builds what the loop needs (threads, clients).
   *
   * @throws IllegalStateException when already started or closed
   */
  public synchronized void checkStartable() {
    if (started || closed) {
      throw new IllegalStateException("already started or closed");
    }
  }

  /**
   * Starts {@code body} as loop {@code name} of a supervisor of its own for {@code service}, which
   * {@link #close} closes.
   *
   * @throws IllegalStateException when already started or closed
   */
  public synchronized void startOwn(
      String service, MeterRegistry registry, String name, Loop body) {
    checkStartable();
    Supervisor supervisor = new Supervisor(service, registry);
    try {
      start(supervisor, name, body);
    } catch (RuntimeException e) {
      supervisor.close();
      throw e;
    }
    own = supervisor;
  }

  /**
   * Hands it {@code supervisor} to close after the loop, for a component that made a supervisor of
   * its own (its own backoffs, clock or instance) and started the loop on it.
   */
  public synchronized void own(Supervisor supervisor) {
    own = supervisor;
  }

  /** The loop, once started; null before and for an idle start. */
  public synchronized Supervisor.SupervisedLoop loop() {
    return loop;
  }

  /** Whether {@link #close} was called. */
  public synchronized boolean closed() {
    return closed;
  }

  /**
   * Asks the loop to stop and waits for it (see {@link Supervisor.SupervisedLoop#close}), then
   * closes the supervisor of its own, if any. Idempotent; a loop never started is only marked
   * closed, so it cannot start later.
   */
  @Override
  public void close() {
    Supervisor.SupervisedLoop l;
    Supervisor o;
    synchronized (this) {
      closed = true;
      l = loop;
      o = own;
    }
    if (l != null) {
      l.close();
    }
    if (o != null) {
      o.close();
    }
  }
}
