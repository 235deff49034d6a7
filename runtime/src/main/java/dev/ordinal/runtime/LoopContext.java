package dev.ordinal.runtime;

import java.time.Duration;

/** What a {@link Loop} body is given by its {@link Supervisor}. */
public interface LoopContext {

  /** False once the loop was asked to stop: finish the work in hand and return. */
  boolean running();

  /**
   * The loop does its work: its state becomes {@link LoopState#RUNNING} and its run of failures is
   * over (the next failure backs off from the shortest wait again). Cheap; call it after each unit
   * of work that succeeded.
   */
  void healthy();

  /**
   * A failure the body handles in place (it keeps its clients and goes on, e.g. a consumer that
   * rewinds to the failed record): logged once with its cause, counted as a restart, state {@link
   * LoopState#BACKING_OFF}; then waits the backoff.
   *
   * @return false when the loop was asked to stop during the wait
   */
  boolean backOff(Throwable cause);

  /**
   * As {@link #backOff}, for a body that logged the failure itself with more context (a message id)
   * and waits its own way: records and counts it, state {@link LoopState#BACKING_OFF}, no log line,
   * no wait.
   */
  void failed(Throwable cause);

  /**
   * Waits {@code timeout}, or less when the loop is asked to stop.
   *
   * @return true while the loop should go on
   */
  boolean await(Duration timeout);

  /**
   * Called (once, from the stopping thread) when the loop is asked to stop, to break a blocking
   * call such as {@code KafkaConsumer.poll} ({@code consumer::wakeup}). Replaces an earlier one;
   * the supervisor forgets it when the body's run ends.
   */
  void onStop(Runnable wakeUp);
}
