package dev.ordinal.lab.sim;

/** The faults {@link IntegratorSimulator} injects; see {@link IntegratorFaults} for each. */
public enum IntegratorFault {
  /** 503 after the latency; nothing stored. */
  TRANSIENT_FAILURE,
  /** 422 after the latency; nothing stored. */
  REJECTION,
  /** Held for {@link IntegratorFaults#timeout()}, then 504; nothing stored. */
  TIMEOUT,
  /** Processed (stored, or counted as a duplicate), then the connection closed unanswered. */
  DROPPED_AFTER_ACCEPT,
  /** Held for {@link IntegratorFaults#timeout()}, then processed and answered: stored late. */
  LATE_ACCEPT
}
