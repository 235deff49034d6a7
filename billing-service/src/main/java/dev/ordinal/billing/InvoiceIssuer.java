package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;

import dev.ordinal.billing.db.tables.records.InvoiceRecord;
import dev.ordinal.runtime.Backoff;
import dev.ordinal.runtime.Loop;
import dev.ordinal.runtime.LoopContext;
import dev.ordinal.runtime.LoopOwner;
import dev.ordinal.runtime.Supervisor;
import dev.ordinal.runtime.Tracing;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jooq.DSLContext;
import org.jooq.Result;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends invoices to the integrator with just-in-time numbers, and recovers the ones whose outcome
 * is unknown.
 *
 * <p>One queue serves all cases: invoices in {@code DRAFT} or {@code SENDING} whose {@code
 * next_attempt_at} has passed are claimed ({@code FOR UPDATE SKIP LOCKED}, short transaction, lease
 * = {@link InvoiceIssuerConfig#lease()}). A draft gets its number ({@link
 * InvoiceNumbering#reserve}, committed) and is submitted. An invoice already {@code SENDING} was
 * tried before and may be at the integrator already (a timeout, a dropped connection, a worker
 * killed after the integrator accepted): it is first looked up BY NUMBER — found means repaired
 * locally as {@code ISSUED}, never a new number; not found means resent with the same number,
 * unless the order was cancelled and the series voids on cancel: then the number is voided, but
 * only when the look-up began after the latest submission's in-flight window ({@link
 * InvoiceIssuerConfig#inFlightWindow()}); inside it, "not found" may be "not yet" (a late accept),
 * so the invoice is looked up again once the window has passed. Every step is guarded by the
 * attempt's epoch and timed by the database's clock ({@link InvoiceLifecycle}). No database
 * transaction is open during an integrator call.
 *
 * <p>A fence stands immediately before every submission, once its call slot is free: {@code
 * sent_at} is stamped then (the call really starts; the in-flight window runs from it), guarded by
 * the attempt's epoch, and the attempt's lease, measured on the monotonic clock from before the
 * claim ({@link CallFence}), must still cover the client's timeout; otherwise the call is not made
 * ({@link #fenced()}) and the invoice is looked up and sent again after its lease.
 *
 * <p>Outcomes: accepted → {@code ISSUED} and an {@code InvoiceIssued} outbox event in the same
 * transaction; rejected → {@code ERROR}, number kept (an operator resends or voids it); transient →
 * retried with backoff, same number.
 *
 * <p>In flight: at most {@link InvoiceIssuerConfig#workers()} integrator calls at once (a gate
 * around each call), with as many more invoices prepared meanwhile on threads of their own
 * (claimed, numbered, and marked issued after their call), so the database work of one invoice
 * never leaves a call slot idle: with a backlog the integrator sees {@code workers} calls at all
 * times. ({@link #drain()}, for tests and one-off runs, works one invoice per call slot.)
 */
public final class InvoiceIssuer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(InvoiceIssuer.class);

  private final InvoiceIssuerConfig config;
  private final Backoff backoff;
  private final DSLContext dsl;
  private final InvoiceNumbering numbering;
  private final EInvoiceIntegrator integrator;
  private final InvoiceEvents events;
  private final Counter issued;
  private final Counter repaired;
  private final Counter rejected;
  private final Counter retried;
  private final Counter voided;
  private final Counter deferred;
  private final Counter acceptedNotSending;
  private final Counter fenced;
  private final Timer calls;
  private final Semaphore calling;
  private final MeterRegistry registry;
  private final LoopOwner loop = new LoopOwner();
  private ExecutorService workers;

  public InvoiceIssuer(
      InvoiceIssuerConfig config,
      DSLContext dsl,
      EInvoiceIntegrator integrator,
      MeterRegistry registry,
      Clock clock) {
    this.config = config;
    this.backoff = Backoff.exponential(config.initialBackoff(), config.maxBackoff());
    this.dsl = dsl;
    this.numbering = new InvoiceNumbering(dsl);
    this.integrator = integrator;
    this.events = new InvoiceEvents(clock);
    this.registry = registry;
    this.calling = new Semaphore(config.workers());
    this.issued = counter(registry, "issued");
    this.repaired = counter(registry, "repaired");
    this.rejected = counter(registry, "rejected");
    this.retried = counter(registry, "retried");
    this.voided = counter(registry, "voided");
    this.deferred = counter(registry, "void_deferred");
    this.acceptedNotSending = counter(registry, "accepted_not_sending");
    this.fenced = counter(registry, "fenced");
    this.calls =
        Timer.builder("ordinal.billing.integrator.calls")
            .description("Integrator submissions and look-ups")
            // buckets, not client-side percentiles: histogram_quantile works over all instances
            .publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofMillis(1))
            .maximumExpectedValue(Duration.ofSeconds(60))
            .register(registry);
  }

  private static Counter counter(MeterRegistry registry, String outcome) {
    return Counter.builder("ordinal.billing.invoices")
        .description("Invoice send attempts by outcome")
        .tag("outcome", outcome)
        .register(registry);
  }

  public long issued() {
    return (long) issued.count();
  }

  /** Invoices found at the integrator after an unknown outcome and marked issued locally. */
  public long repaired() {
    return (long) repaired.count();
  }

  public long rejected() {
    return (long) rejected.count();
  }

  public long retried() {
    return (long) retried.count();
  }

  /** Cancelled invoices voided after a look-up outside their in-flight window found nothing. */
  public long voided() {
    return (long) voided.count();
  }

  /**
   * Voids put off because the look-up came inside the in-flight window of an earlier submission:
   * each one would have been a void of a number the integrator might still store.
   */
  public long voidsDeferred() {
    return (long) deferred.count();
  }

  /** Accepts (or look-ups that found the invoice) for an invoice no longer SENDING nor ISSUED. */
  public long acceptedNotSending() {
    return (long) acceptedNotSending.count();
  }

  /**
   * Submissions not made because, once a call slot was free, the attempt's lease had less than the
   * call's timeout left, or another attempt had claimed the invoice: each is looked up and sent
   * again after the lease.
   */
  public long fenced() {
    return (long) fenced.count();
  }

  /**
   * Starts the workers: the queue is polled until {@link #close()}, under a supervisor of its own
   * (loop {@code invoice-issuer}).
   */
  public synchronized InvoiceIssuer start() {
    return start(body -> loop.startOwn("invoice-issuer", registry, "invoice-issuer", body));
  }

  /**
   * Starts the workers, the queue polled as loop {@code loopName} of {@code supervisor}: a database
   * error while claiming (a restart, a failover, a pool timeout) fails the loop, which runs again
   * after a backoff; invoices claimed before it are finished by their workers.
   */
  public synchronized InvoiceIssuer start(Supervisor supervisor, String loopName) {
    return start(body -> loop.start(supervisor, loopName, body));
  }

  /** Starts the workers, and the queue's loop by {@code startLoop}; the workers go if it fails. */
  private InvoiceIssuer start(Consumer<Loop> startLoop) {
    ExecutorService pool =
        Executors.newFixedThreadPool(threads(), r -> new Thread(r, "invoice-issuer"));
    Semaphore free = new Semaphore(threads());
    try {
      startLoop.accept(ctx -> run(ctx, pool, free));
    } catch (RuntimeException e) {
      pool.shutdownNow();
      throw e;
    }
    workers = pool;
    return this;
  }

  /** Threads per issuer: one per call slot, plus as many preparing the next invoices. */
  private int threads() {
    return 2 * config.workers();
  }

  private void run(LoopContext ctx, ExecutorService workers, Semaphore free)
      throws InterruptedException {
    while (ctx.running()) {
      free.acquire();
      int slots = 1 + free.drainPermits();
      Result<InvoiceRecord> claimed;
      CallFence fence = CallFence.startingNow(config.lease());
      try {
        claimed = claim(slots);
      } catch (RuntimeException e) {
        free.release(slots);
        throw e;
      }
      ctx.healthy();
      free.release(slots - claimed.size());
      for (InvoiceRecord inv : claimed) {
        workers.execute(
            () -> {
              try {
                process(inv, fence);
              } finally {
                free.release();
              }
            });
      }
      if (claimed.isEmpty()) {
        ctx.await(config.pollInterval());
      }
    }
  }

  /**
   * Works the queue from the calling thread until nothing is due: for tests and one-off recovery
   * runs. Returns how many invoices were handled.
   */
  public int drain() {
    int handled = 0;
    // one invoice per call slot at a time, in claim order: a one-off run, not the throughput path
    ExecutorService pool = Executors.newFixedThreadPool(config.workers());
    try {
      while (true) {
        CallFence fence = CallFence.startingNow(config.lease());
        Result<InvoiceRecord> claimed = claim(config.workers() * 4);
        if (claimed.isEmpty()) {
          return handled;
        }
        try {
          Parallel.each(pool, claimed, inv -> process(inv, fence));
        } catch (InterruptedException | ExecutionException e) {
          throw new IllegalStateException(e);
        }
        handled += claimed.size();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Claims up to {@code n} due invoices for one lease; a short transaction of its own. Due times
   * and the lease are on the database's clock. Each claim is a new attempt: {@code attempts} goes
   * up by one and is the attempt's epoch, and the returned {@code next_attempt_at} minus the lease
   * is the moment of the claim.
   */
  Result<InvoiceRecord> claim(int n) {
    return dsl.update(INVOICE)
        .set(INVOICE.NEXT_ATTEMPT_AT, DbClock.nowPlus(config.lease()))
        .set(INVOICE.ATTEMPTS, INVOICE.ATTEMPTS.plus(1))
        .where(
            INVOICE.ID.in(
                DSL.select(INVOICE.ID)
                    .from(INVOICE)
                    .where(
                        INVOICE.STATUS.in(InvoiceStatus.DRAFT.name(), InvoiceStatus.SENDING.name()))
                    .and(
                        INVOICE
                            .NEXT_ATTEMPT_AT
                            .isNull()
                            .or(INVOICE.NEXT_ATTEMPT_AT.le(DbClock.now())))
                    // interactive before bulk: a person waits for those
                    .orderBy(
                        DSL.when(INVOICE.CHANNEL.eq("interactive"), 0).otherwise(1),
                        INVOICE.CREATED_AT,
                        INVOICE.ID)
                    .limit(n)
                    .forUpdate()
                    .skipLocked()))
        .returning()
        .fetch();
  }

  /** {@link #process(InvoiceRecord, CallFence)} as if claimed just now: for tests. */
  void process(InvoiceRecord claimed) {
    process(claimed, CallFence.startingNow(config.lease()));
  }

  /**
   * One attempt for one claimed invoice, whose lease ends at {@code fence} (the monotonic clock),
   * in a span of the order's trace ({@code invoice.traceparent} and {@code invoice.tracestate});
   * never throws.
   */
  void process(InvoiceRecord claimed, CallFence fence) {
    String parent = claimed.getTraceparent();
    Tracing.inSpan("issue invoice", parent, claimed.getTracestate(), () -> attempt(claimed, fence));
  }

  private void attempt(InvoiceRecord claimed, CallFence fence) {
    int epoch = claimed.getAttempts();
    try {
      if (InvoiceStatus.valueOf(claimed.getStatus()) == InvoiceStatus.SENDING) {
        // the look-up begins after the claim, and the claim was at next_attempt_at - lease
        OffsetDateTime lookedUpAt = claimed.getNextAttemptAt().minus(config.lease());
        if (lookUpFirst(claimed)) {
          return;
        }
        if (InvoiceLifecycle.voidNotHeld(
            dsl, claimed.getId(), epoch, lookedUpAt, config.inFlightWindow(), events)) {
          voided.increment();
          return; // cancelled, not at the integrator after its window, and the series voids
        }
        if (InvoiceLifecycle.deferVoid(
            dsl,
            claimed.getId(),
            epoch,
            "not found at the integrator yet; looked up again once an earlier submission can no"
                + " longer land",
            config.inFlightWindow())) {
          deferred.increment();
          return; // cancelled, but an earlier submission may still land: ask again later
        }
        if (!InvoiceLifecycle.resending(dsl, claimed.getId(), epoch)) {
          return; // another attempt claimed it, or it settled meanwhile
        }
      }
      Optional<InvoiceNumbering.Reservation> r = numbering.reserve(claimed.getId());
      if (r.isEmpty()) {
        return; // no longer waiting to be sent (cancelled, issued meanwhile)
      }
      send(claimed, r.get(), fence);
    } catch (IntegratorException.Transient | IntegratorException.OutcomeUnknown e) {
      retried.increment();
      later(claimed, e.getMessage());
    } catch (IntegratorException.Rejected e) {
      rejected.increment();
      InvoiceLifecycle.reject(dsl, claimed.getId(), epoch, e.getMessage(), config.inFlightWindow());
    } catch (IntegratorException.NumberTaken e) {
      rejected.increment();
      log.error("Invoice {} NOT sent: {}", claimed.getId(), e.getMessage());
      InvoiceLifecycle.numberTaken(dsl, claimed.getId(), epoch, e.getMessage());
    } catch (IntegratorException e) {
      // the kinds above are all there are (sealed); kept for the compiler
      retried.increment();
      later(claimed, e.getMessage());
    } catch (RuntimeException e) {
      // the lease expires and the invoice is looked up by number on the next attempt
      log.warn(
          "Invoice {} attempt failed; retried after its lease: {}", claimed.getId(), e.toString());
    }
  }

  /** True when the look-up settled the invoice (issued there: repaired here). */
  private boolean lookUpFirst(InvoiceRecord inv) throws IntegratorException {
    Optional<EInvoiceIntegrator.RemoteInvoice> remote;
    calling.acquireUninterruptibly();
    long t0 = System.nanoTime();
    try {
      remote = integrator.lookup(inv.getSeries(), inv.getNumber());
    } finally {
      calling.release();
      calls.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
    }
    if (remote.isEmpty()) {
      return false;
    }
    if (!remote.get().invoiceId().equals(InvoiceNumbering.uuid(inv))) {
      throw new IntegratorException.NumberTaken(
          inv.getSeries() + "/" + inv.getNumber() + " holds invoice " + remote.get().invoiceId());
    }
    if (held(inv)) {
      repaired.increment();
      log.info(
          "Invoice {} ({}/{}) was at the integrator already: repaired",
          inv.getId(),
          inv.getSeries(),
          inv.getNumber());
    }
    return true;
  }

  private void send(InvoiceRecord inv, InvoiceNumbering.Reservation r, CallFence fence)
      throws IntegratorException {
    calling.acquireUninterruptibly();
    long t0 = System.nanoTime();
    try {
      if (!callStarts(inv, fence)) {
        return;
      }
      integrator.submit(
          new EInvoiceIntegrator.Submission(
              r.series(),
              r.number(),
              r.invoiceId(),
              inv.getOrderId(),
              inv.getTotal(),
              inv.getCurrency()));
    } finally {
      calling.release();
      calls.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
    }
    inv.setNumber(r.number());
    inv.setSeries(r.series());
    if (held(inv)) {
      issued.increment();
    }
  }

  /**
   * The fence immediately before a submission, once a call slot is free: {@code sent_at} is stamped
   * now (the call really starts), guarded by the attempt's epoch, and the lease must still cover
   * the call's timeout on the monotonic clock. False (the call is not made) when another attempt
   * has claimed the invoice or it left SENDING, or when too little lease is left: then the invoice
   * is looked up and sent again after its lease, same number.
   */
  private boolean callStarts(InvoiceRecord inv, CallFence fence) {
    if (!InvoiceLifecycle.callStarts(dsl, inv.getId(), inv.getAttempts())) {
      fenced.increment();
      log.info("Invoice {} not sent: another attempt has claimed it", inv.getId());
      return false;
    }
    if (!fence.covers(config.callTimeout())) {
      fenced.increment();
      log.warn(
          "Invoice {} not sent: its lease has {} left, less than the call's timeout {}; looked up"
              + " and sent again after the lease",
          inv.getId(),
          fence.remaining(),
          config.callTimeout());
      return false;
    }
    return true;
  }

  /**
   * The integrator holds {@code inv}: SENDING → ISSUED. An invoice no longer SENDING here that is
   * not ISSUED either (voided, in error) is a discrepancy: logged, counted, recorded for the
   * reconciliation. True when this call issued it.
   */
  private boolean held(InvoiceRecord inv) {
    if (InvoiceLifecycle.issue(dsl, inv, events)) {
      return true;
    }
    String now =
        dsl.select(INVOICE.STATUS)
            .from(INVOICE)
            .where(INVOICE.ID.eq(inv.getId()))
            .fetchOne(INVOICE.STATUS);
    if (!InvoiceStatus.ISSUED.name().equals(now)) {
      acceptedNotSending.increment();
      log.error(
          "The integrator holds invoice {} ({}/{}) but it is {} here: recorded as a discrepancy;"
              + " an operator must settle it (see 'ordinal invoices reconcile')",
          inv.getId(),
          inv.getSeries(),
          inv.getNumber(),
          now);
      InvoiceReconciliation.record(dsl, inv.getId(), InvoiceNumbering.uuid(inv));
    }
    return false;
  }

  private void later(InvoiceRecord inv, String why) {
    Duration wait = backoff.delay(Math.max(inv.getAttempts(), 1));
    InvoiceLifecycle.retryLater(dsl, inv.getId(), inv.getAttempts(), wait, why);
  }

  @Override
  public synchronized void close() {
    loop.close();
    if (workers != null) {
      workers.shutdown();
      try {
        if (!workers.awaitTermination(30, TimeUnit.SECONDS)) {
          workers.shutdownNow();
        }
      } catch (InterruptedException e) {
        workers.shutdownNow();
        Thread.currentThread().interrupt();
      }
    }
  }
}
