package dev.ordinal.runtime;

/** Where a supervised loop is. Only {@link #RUNNING} counts as ready. */
public enum LoopState {
  /** Started, not yet doing its work (connecting, joining a group, waiting to lead). */
  STARTING,
  /** Doing its work. */
  RUNNING,
  /** Failed; waiting before it runs again. */
  BACKING_OFF,
  /** Asked to stop, and stopped. */
  STOPPED
}
