package dev.ordinal.billing;

import dev.ordinal.messaging.ConfigurationException;
import java.time.Duration;

/**
 * Settings of the {@link InvoiceIssuer}.
 *
 * @param workers integrator calls in flight at most (the issuer prepares as many more invoices
 *     meanwhile, on threads of its own, so its database work never leaves a call slot idle)
 * @param lease how long a claimed invoice is left alone; a worker that dies mid-call leaves it to
 *     be looked up by number after this. Must exceed the integrator's timeout.
 * @param pollInterval how often the queue is checked when it was empty
 * @param initialBackoff first wait after a transient failure, doubled up to {@code maxBackoff}
 * @param maxBackoff longest wait between attempts
 */
public record InvoiceIssuerConfig(
    int workers,
    Duration lease,
    Duration pollInterval,
    Duration initialBackoff,
    Duration maxBackoff) {
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
    if (lease.compareTo(HttpEInvoiceIntegrator.DEFAULT_TIMEOUT) <= 0) {
      throw new ConfigurationException(
          "lease must be longer than the integrator timeout ("
              + HttpEInvoiceIntegrator.DEFAULT_TIMEOUT
              + "), or a slow call would be taken for a dead one: "
              + lease);
    }
    if (maxBackoff.compareTo(initialBackoff) < 0) {
      throw new ConfigurationException("maxBackoff must not be shorter than initialBackoff");
    }
  }

  public static InvoiceIssuerConfig defaults() {
    return new InvoiceIssuerConfig(DEFAULT_WORKERS, null, null, null, null);
  }

  public InvoiceIssuerConfig withWorkers(int n) {
    return new InvoiceIssuerConfig(n, lease, pollInterval, initialBackoff, maxBackoff);
  }

  public InvoiceIssuerConfig withBackoff(Duration initial, Duration max) {
    return new InvoiceIssuerConfig(workers, lease, pollInterval, initial, max);
  }
}
