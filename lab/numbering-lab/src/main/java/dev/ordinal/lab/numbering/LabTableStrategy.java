package dev.ordinal.lab.numbering;

import static dev.ordinal.lab.numbering.LabTables.ID;
import static dev.ordinal.lab.numbering.LabTables.NUMBER;
import static dev.ordinal.lab.numbering.LabTables.ORDER_ID;
import static dev.ordinal.lab.numbering.LabTables.SERIES;
import static dev.ordinal.lab.numbering.LabTables.STATUS;
import static dev.ordinal.lab.numbering.LabTables.TOTAL;

import dev.ordinal.billing.EInvoiceIntegrator;
import dev.ordinal.billing.IntegratorException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jooq.DSLContext;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * What the three strategies the project rejects have in common: an invoice table of their own, W
 * workers taking invoices from one queue, a retry (to the back of the queue) after a transient
 * failure, and the gap count. Subclasses decide when the number is taken.
 */
abstract class LabTableStrategy implements NumberingStrategy {
  /** A stuck invoice is left open after this many attempts (and counted as unfinished). */
  static final int MAX_ATTEMPTS = 200;

  static final Duration SEND_DEADLINE = Duration.ofMinutes(2);

  /** How a submission ended, as the strategies need it. */
  enum Answer {
    ACCEPTED,
    REJECTED,
    /** 409: the integrator holds another invoice under this number. */
    NUMBER_TAKEN,
    /** 503 or no answer: nothing stored (the lab injects no dropped connections). */
    RETRY
  }

  enum Step {
    DONE,
    RETRY
  }

  /** An invoice waiting to be sent; {@code number} is null unless numbered at creation. */
  record Open(long id, UUID orderId, BigDecimal total, Long number) {}

  protected final DSLContext dsl;
  protected final String series;
  protected final Table<Record> invoices;
  private final LabResult.Strategy kind;

  /** A strategy of {@code kind} on {@code series}, its tables named after {@code kind}'s key. */
  LabTableStrategy(DSLContext dsl, String series, LabResult.Strategy kind) {
    this.dsl = dsl;
    this.series = series;
    this.kind = kind;
    this.invoices = LabTables.invoices(kind.key());
  }

  @Override
  public final LabResult.Strategy kind() {
    return kind;
  }

  @Override
  public String series() {
    return series;
  }

  /** Creates the strategy's tables, empty. */
  void setUp() {
    LabTables.recreateInvoices(dsl, invoices);
  }

  @Override
  public void enqueue(Workload workload) {
    for (Workload.Order o : workload.orders()) {
      dsl.transaction(
          c -> {
            DSLContext tx = c.dsl();
            tx.insertInto(invoices)
                .set(ORDER_ID, o.orderId())
                .set(SERIES, series)
                .set(TOTAL, o.total())
                .set(NUMBER, numberAtCreation(tx))
                .set(STATUS, LabTables.OPEN)
                .execute();
          });
    }
    for (Workload.Order o : workload.orders()) {
      if (o.cancelled()) {
        dsl.update(invoices)
            .set(STATUS, LabTables.CANCELLED)
            .where(ORDER_ID.eq(o.orderId()))
            .and(STATUS.eq(LabTables.OPEN))
            .execute();
      }
    }
  }

  /** The number an invoice gets when it is created: none, unless the strategy says otherwise. */
  Long numberAtCreation(DSLContext tx) {
    return null;
  }

  /** One attempt for one invoice. */
  abstract Step attempt(EInvoiceIntegrator integrator, Open invoice);

  @Override
  public void send(EInvoiceIntegrator integrator, int workers) {
    List<Open> open =
        dsl.select(ID, ORDER_ID, TOTAL, NUMBER)
            .from(invoices)
            .where(STATUS.eq(LabTables.OPEN))
            .orderBy(ID)
            .fetch(r -> new Open(r.value1(), r.value2(), r.value3(), r.value4()));
    BlockingQueue<Open> queue = new LinkedBlockingQueue<>(open);
    Map<Long, Integer> attempts = new ConcurrentHashMap<>();
    AtomicInteger left = new AtomicInteger(open.size());
    AtomicBoolean failed = new AtomicBoolean();
    ExecutorService pool =
        Executors.newFixedThreadPool(workers, r -> new Thread(r, "lab-" + kind().key()));
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int i = 0; i < workers; i++) {
        running.add(
            pool.submit(
                () -> {
                  try {
                    while (left.get() > 0 && !failed.get()) {
                      Open inv = queue.poll(5, TimeUnit.MILLISECONDS);
                      if (inv == null) {
                        continue;
                      }
                      Step step = attempt(integrator, inv);
                      if (step == Step.DONE
                          || attempts.merge(inv.id(), 1, Integer::sum) >= MAX_ATTEMPTS) {
                        left.decrementAndGet();
                      } else {
                        queue.add(inv);
                      }
                    }
                  } catch (RuntimeException | Error e) {
                    failed.set(true);
                    throw e;
                  }
                  return null;
                }));
      }
      long deadline = System.nanoTime() + SEND_DEADLINE.toNanos();
      for (Future<?> f : running) {
        f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      }
    } catch (ExecutionException e) {
      throw new LabException(kind().label() + " failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new LabException(
          kind().label() + " did not finish in " + SEND_DEADLINE + "; " + left + " invoices left",
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LabException(kind().label() + " was interrupted", e);
    } finally {
      failed.set(true);
      pool.shutdownNow();
    }
  }

  /** Submits {@code invoice} under {@code number}; never throws for what the integrator says. */
  final Answer submit(EInvoiceIntegrator integrator, Open invoice, long number) {
    try {
      integrator.submit(
          new EInvoiceIntegrator.Submission(
              series,
              number,
              invoiceId(invoice.orderId()),
              invoice.orderId(),
              invoice.total(),
              "EUR"));
      return Answer.ACCEPTED;
    } catch (IntegratorException.Rejected e) {
      return Answer.REJECTED;
    } catch (IntegratorException.NumberTaken e) {
      return Answer.NUMBER_TAKEN;
    } catch (IntegratorException e) {
      return Answer.RETRY;
    }
  }

  final void markIssued(long id, long number) {
    dsl.update(invoices)
        .set(NUMBER, number)
        .set(STATUS, LabTables.ISSUED)
        .where(ID.eq(id))
        .and(STATUS.eq(LabTables.OPEN))
        .execute();
  }

  /**
   * Submits {@code invoice} under {@code number} and stores what the integrator said: issued when
   * it accepted, rejected when it rejected (both {@link Step#DONE}), {@link Step#RETRY} to try
   * again. A number already taken (409) is tried again when {@code retryTaken}, otherwise the
   * invoice is marked rejected: its number is lost like a rejected one.
   */
  final Step sendUnder(
      EInvoiceIntegrator integrator, Open invoice, long number, boolean retryTaken) {
    Answer answer = submit(integrator, invoice, number);
    if (answer == Answer.ACCEPTED) {
      markIssued(invoice.id(), number);
      return Step.DONE;
    }
    if (answer == Answer.REJECTED || (answer == Answer.NUMBER_TAKEN && !retryTaken)) {
      markRejected(invoice.id());
      return Step.DONE;
    }
    return Step.RETRY;
  }

  final void markRejected(long id) {
    dsl.update(invoices)
        .set(STATUS, LabTables.REJECTED)
        .where(ID.eq(id))
        .and(STATUS.eq(LabTables.OPEN))
        .execute();
  }

  /** The highest number handed out, issued or not. */
  long handedOut() {
    Long max = dsl.select(DSL.max(NUMBER)).from(invoices).fetchOne().value1();
    return max == null ? 0 : max;
  }

  /** How the gaps come about; the default has nothing to say. */
  String gapNote(int rejected, int cancelled, long gaps) {
    return "";
  }

  @Override
  public SeriesFigures audit() {
    Map<String, Integer> byStatus = new ConcurrentHashMap<>();
    dsl.select(STATUS, DSL.count())
        .from(invoices)
        .groupBy(STATUS)
        .forEach(r -> byStatus.put(r.value1(), r.value2()));
    List<Long> issued =
        dsl.select(NUMBER)
            .from(invoices)
            .where(STATUS.eq(LabTables.ISSUED))
            .orderBy(NUMBER)
            .fetch(NUMBER);
    long highest = handedOut();
    long distinct = issued.stream().distinct().count();
    long duplicateNumbers =
        issued.stream()
            .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()))
            .values()
            .stream()
            .filter(c -> c > 1)
            .count();
    int rejected = byStatus.getOrDefault(LabTables.REJECTED, 0);
    int cancelled = byStatus.getOrDefault(LabTables.CANCELLED, 0);
    long gaps = highest - distinct;
    return new SeriesFigures(
        byStatus.getOrDefault(LabTables.ISSUED, 0),
        rejected,
        cancelled,
        byStatus.getOrDefault(LabTables.OPEN, 0),
        highest,
        gaps,
        duplicateNumbers,
        gapNote(rejected, cancelled, gaps));
  }

  /** The invoice's identity towards the integrator, from its order, as the project derives it. */
  static UUID invoiceId(UUID orderId) {
    return UUID.nameUUIDFromBytes(("invoice:" + orderId).getBytes(StandardCharsets.UTF_8));
  }
}
