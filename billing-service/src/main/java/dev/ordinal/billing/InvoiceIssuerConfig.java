package dev.ordinal.billing;

import dev.ordinal.messaging.ConfigChecks;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.runtime.settings.Check;
import dev.ordinal.runtime.settings.Durations;
import dev.ordinal.runtime.settings.Setting;
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

  /** {@code --issuer-workers}: {@link #workers()}. */
  public static final Setting<Integer> WORKERS =
      Setting.integer(
          "issuer-workers",
          DEFAULT_WORKERS,
          "Integrator calls in flight at most",
          Check.range(1, 256));

  /** {@code --issuer-lease}: {@link #lease()}; it must also exceed the integrator timeout. */
  public static final Setting<Duration> LEASE =
      Setting.duration(
          "issuer-lease",
          DEFAULT_LEASE,
          "How long an invoice being sent is left alone before another instance looks it up by"
              + " number and repairs it (an instance that died mid-call); longer than the"
              + " integrator timeout of "
              + Durations.format(HttpEInvoiceIntegrator.DEFAULT_TIMEOUT),
          Check.positive());

  public InvoiceIssuerConfig {
    ConfigurationException.check(WORKERS, workers);
    ConfigurationException.check(LEASE, lease);
    pollInterval = pollInterval == null ? DEFAULT_POLL_INTERVAL : pollInterval;
    initialBackoff = initialBackoff == null ? DEFAULT_INITIAL_BACKOFF : initialBackoff;
    maxBackoff = maxBackoff == null ? DEFAULT_MAX_BACKOFF : maxBackoff;
    callTimeout = callTimeout == null ? HttpEInvoiceIntegrator.DEFAULT_TIMEOUT : callTimeout;
    if (lease.compareTo(callTimeout) <= 0) {
      // a slow call would be taken for a dead one
      throw new ConfigurationException(
          LEASE.option()
              + " must be longer than the integrator timeout ("
              + callTimeout
              + "), not "
              + lease);
    }
    ConfigChecks.backoff(initialBackoff, maxBackoff);
  }

  /** Every value its default, with the default integrator timeout. */
  public static InvoiceIssuerConfig defaults() {
    return builder().build();
  }

  /** Every value its default until set. */
  public static Builder builder() {
    return new Builder();
  }

  /** A copy to change. */
  public Builder toBuilder() {
    return builder()
        .workers(workers)
        .lease(lease)
        .pollInterval(pollInterval)
        .backoff(initialBackoff, maxBackoff)
        .callTimeout(callTimeout);
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
    return toBuilder().workers(n).build();
  }

  public InvoiceIssuerConfig withBackoff(Duration initial, Duration max) {
    return toBuilder().backoff(initial, max).build();
  }

  /** The lease and the integrator client's timeout it must exceed. */
  public InvoiceIssuerConfig withLease(Duration newLease, Duration newCallTimeout) {
    return toBuilder().lease(newLease).callTimeout(newCallTimeout).build();
  }

  /** Builds an {@link InvoiceIssuerConfig}; what is not set takes its {@code DEFAULT_} constant. */
  public static final class Builder {
    private int workers = DEFAULT_WORKERS;
    private Duration lease = DEFAULT_LEASE;
    private Duration pollInterval;
    private Duration initialBackoff;
    private Duration maxBackoff;
    private Duration callTimeout;

    private Builder() {}

    public Builder workers(int n) {
      workers = n;
      return this;
    }

    public Builder lease(Duration d) {
      lease = d;
      return this;
    }

    public Builder pollInterval(Duration d) {
      pollInterval = d;
      return this;
    }

    public Builder backoff(Duration initial, Duration max) {
      initialBackoff = initial;
      maxBackoff = max;
      return this;
    }

    /** The integrator client's timeout (null: {@link HttpEInvoiceIntegrator#DEFAULT_TIMEOUT}). */
    public Builder callTimeout(Duration d) {
      callTimeout = d;
      return this;
    }

    /**
     * @throws ConfigurationException naming the first setting that is wrong
     */
    public InvoiceIssuerConfig build() {
      return new InvoiceIssuerConfig(
          workers, lease, pollInterval, initialBackoff, maxBackoff, callTimeout);
    }
  }
}
