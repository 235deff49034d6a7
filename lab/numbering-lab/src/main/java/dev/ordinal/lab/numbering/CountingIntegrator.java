package dev.ordinal.lab.numbering;

import dev.ordinal.billing.EInvoiceIntegrator;
import dev.ordinal.billing.IntegratorException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Passes every call on and measures how many submissions were in flight at once, at most and on
 * average: a maximum of 1 means the strategy's workers were serialised, whatever their number.
 */
final class CountingIntegrator implements EInvoiceIntegrator {
  private final EInvoiceIntegrator delegate;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger maxInFlight = new AtomicInteger();
  private final AtomicLong busyNanos = new AtomicLong();

  CountingIntegrator(EInvoiceIntegrator delegate) {
    this.delegate = delegate;
  }

  @Override
  public void submit(Submission submission) throws IntegratorException {
    maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
    long t0 = System.nanoTime();
    try {
      delegate.submit(submission);
    } finally {
      busyNanos.addAndGet(System.nanoTime() - t0);
      inFlight.decrementAndGet();
    }
  }

  @Override
  public Optional<RemoteInvoice> lookup(String series, long number) throws IntegratorException {
    return delegate.lookup(series, number);
  }

  @Override
  public java.util.List<RemoteInvoice> lookupByInvoice(java.util.UUID invoiceId)
      throws IntegratorException {
    return delegate.lookupByInvoice(invoiceId);
  }

  int maxInFlight() {
    return maxInFlight.get();
  }

  /** Time spent in submissions, summed over the callers: divided by the wall time, the mean. */
  long busyNanos() {
    return busyNanos.get();
  }
}
