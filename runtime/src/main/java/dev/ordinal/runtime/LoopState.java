package dev.ordinal.runtime;

/** Where a supervised loop is. Only {@link #RUNNING} counts as ready. */
public enum LoopState {
  /** Started, not yet doing its work (connecting, joining a group, waiting to lead). */
  STARTING,
  /** Doing its work. */
  RUNNING,
  /**
   * Was RUNNING, and has shown no progress (no {@link LoopContext#healthy()}, no wait, no failure)
   * for longer than its supervisor's stall bound: stuck in a call that does not return. Not ready,
   * and not live ({@code /health/live} answers 503, so an orchestrator restarts the process).
   */
  STALLED,
  /** Failed; waiting before it runs again. */
  BACKING_OFF,
  /** Asked to stop, and stopped. */
  STOPPED
}
