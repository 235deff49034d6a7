package dev.ordinal.billing;

import dev.ordinal.messaging.ConfigurationException;
import java.time.Duration;

/**
 * Settings of the {@link InvoiceIssuer}.
 *
 * @param workers integrator calls in flight at most (the issuer prepares as many more invoices
 *     meanwhile, on threads of its own, so its database work never leaves a call slot idle)
 * @param lease how long a claimed invoice is left alone; a worker that dies mid-call leaves it to
 *     be looked up by number after this. Must exceed {@code callTimeout}.
 * @param pollInterval how often the queue is checked when it was empty
 * @param initialBackoff first wait after a transient failure, doubled up to {@code maxBackoff},
 *     each wait ±50 % ({@link dev.ordinal.runtime.Backoff})
 * @param maxBackoff longest wait between attempts
 * @param callTimeout the integrator client's timeout: with the lease it makes the in-flight window
 *     ({@link #inFlightWindow()})
 */
public record InvoiceIssuerConfig(
    int workers,
    Duration lease,
    Duration pollInterval,
    Duration initialBackoff,
    Duration maxBackoff,
    Duration callTimeout) {
  public static final int DEFAULT_WORKERS = 4;
  public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(100);
  public static final Duration DEFAULT_INITIAL_BACKOFF = Duration.ofMillis(200);
  public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(30);

  public InvoiceIssuerConfig {
    if (workers < 1 || workers > 256) {
      throw new ConfigurationException("workers must be 1 to 256, not " + workers);
    }
    lease = lease == null ? DEFAULT_LEASE : lease;
    pollInterval = pollInterval == null ? DEFAULT_POLL_INTERVAL : pollInterval;
    initialBackoff = initialBackoff == null ? DEFAULT_INITIAL_BACKOFF : initialBackoff;
    maxBackoff = maxBackoff == null ? DEFAULT_MAX_BACKOFF : maxBackoff;
    callTimeout = callTimeout == null ? HttpEInvoiceIntegrator.DEFAULT_TIMEOUT : callTimeout;
    if (lease.compareTo(callTimeout) <= 0) {
      throw new ConfigurationException(
          "lease must be longer than the integrator timeout ("
              + callTimeout
              + "), or a slow call would be taken for a dead one: "
              + lease);
    }
    if (maxBackoff.compareTo(initialBackoff) < 0) {
      throw new ConfigurationException("maxBackoff must not be shorter than initialBackoff");
    }
  }

  /** With the default integrator timeout ({@link HttpEInvoiceIntegrator#DEFAULT_TIMEOUT}). */
  public InvoiceIssuerConfig(
      int workers,
      Duration lease,
      Duration pollInterval,
      Duration initialBackoff,
      Duration maxBackoff) {
    this(workers, lease, pollInterval, initialBackoff, maxBackoff, null);
  }

  public static InvoiceIssuerConfig defaults() {
    return new InvoiceIssuerConfig(DEFAULT_WORKERS, null, null, null, null, null);
  }

  /**
   * How long after a submission began it may still land at the integrator, as far as billing can
   * tell: the lease (the attempt may start its call that late) plus the client's timeout. A number
   * is voided only after a look-up that began later than that finds nothing.
   */
  public Duration inFlightWindow() {
    return lease.plus(callTimeout);
  }

  public InvoiceIssuerConfig withWorkers(int n) {
    return new InvoiceIssuerConfig(n, lease, pollInterval, initialBackoff, maxBackoff, callTimeout);
  }

  public InvoiceIssuerConfig withBackoff(Duration initial, Duration max) {
    return new InvoiceIssuerConfig(workers, lease, pollInterval, initial, max, callTimeout);
  }

  /** The lease and the integrator client's timeout it must exceed. */
  public InvoiceIssuerConfig withLease(Duration newLease, Duration newCallTimeout) {
    return new InvoiceIssuerConfig(
        workers, newLease, pollInterval, initialBackoff, maxBackoff, newCallTimeout);
  }
}
