package dev.ordinal.billing;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The end of one claim's lease on this process's monotonic clock ({@link System#nanoTime()}), taken
 * before the claim was sent, so it ends no later than the lease the database granted. Asked
 * immediately before an external call: a call is made only while the lease has at least the call's
 * timeout left, so a call this attempt makes ends (from the caller's side) before another attempt
 * can claim the same row. The monotonic clock is not moved by NTP or an operator, and a process
 * frozen past its lease finds, when it wakes, that its lease is gone.
 *
 * @param nanoTime the monotonic clock
 * @param endNanos where on it the lease ends
 */
record CallFence(LongSupplier nanoTime, long endNanos) {

  /** A lease of {@code lease} starting now, on {@link System#nanoTime()}. */
  static CallFence startingNow(Duration lease) {
    return startingNow(lease, System::nanoTime);
  }

  // visible for testing
  static CallFence startingNow(Duration lease, LongSupplier nanoTime) {
    return new CallFence(nanoTime, nanoTime.getAsLong() + lease.toNanos());
  }

  /** What is left of the lease now; negative once it has passed. */
  Duration remaining() {
    return Duration.ofNanos(endNanos - nanoTime.getAsLong());
  }

  /** Whether a call that may take up to {@code callTimeout} still ends inside the lease. */
  boolean covers(Duration callTimeout) {
    return endNanos - nanoTime.getAsLong() >= callTimeout.toNanos();
  }
}
