package dev.ordinal.cli;

import dev.ordinal.billing.EInvoiceIntegrator;
import dev.ordinal.billing.IntegratorException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Measures how many integrator submissions of one series are in flight at once. All numbers of a
 * series come from one counter row; two calls of the same series overlapping in time prove that no
 * lock on that row is held across a call (invariant 7).
 */
final class CallOverlap {
  private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
  private final AtomicInteger max = new AtomicInteger();

  int maxSameSeriesOverlap() {
    return max.get();
  }

  EInvoiceIntegrator wrap(EInvoiceIntegrator delegate) {
    return new EInvoiceIntegrator() {
      @Override
      public void submit(Submission s) throws IntegratorException {
        AtomicInteger n = inFlight.computeIfAbsent(s.series(), k -> new AtomicInteger());
        max.accumulateAndGet(n.incrementAndGet(), Math::max);
        try {
          delegate.submit(s);
        } finally {
          n.decrementAndGet();
        }
      }

      @Override
      public Optional<RemoteInvoice> lookup(String series, long number) throws IntegratorException {
        return delegate.lookup(series, number);
      }
    };
  }
}
