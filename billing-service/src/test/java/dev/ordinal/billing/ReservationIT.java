package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Reservations give each series exactly 1..N, and never wait on an integrator call. */
@ExtendWith(OrdinalStackExtension.class)
class ReservationIT {
  static BillingFixture fx;

  @BeforeAll
  static void schema(TestNamespace ns) {
    fx = new BillingFixture(ns, "reservation");
  }

  @AfterAll
  static void close() {
    fx.close();
  }

  @Test
  void eightConcurrentReserversNumberEightHundredDraftsExactlyOneToEightHundred() throws Exception {
    List<Long> drafts = fx.drafts("CONC", 800);
    InvoiceNumbering numbering = new InvoiceNumbering(fx.dsl);
    List<Long> numbers = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (long id : drafts) {
        running.add(pool.submit(() -> numbers.add(numbering.reserve(id).orElseThrow().number())));
      }
      awaitAll(running);
    } finally {
      pool.shutdownNow();
    }
    assertOneToEightHundred(numbers);
    assertEightHundredReserved("CONC");
  }

  @Test
  void aRetryKeepsItsNumber() {
    List<Long> drafts = fx.drafts("RETRY", 2);
    InvoiceNumbering numbering = new InvoiceNumbering(fx.dsl);
    assertThat(numbering.reserve(drafts.get(0)).orElseThrow().number()).isEqualTo(1);
    assertThat(numbering.reserve(drafts.get(0)).orElseThrow())
        .as("the same invoice again")
        .satisfies(r -> assertThat(r.number()).isEqualTo(1))
        .satisfies(r -> assertThat(r.fresh()).isFalse());
    assertThat(numbering.reserve(drafts.get(1)).orElseThrow().number()).isEqualTo(2);
    assertThat(new GapAudit(fx.dsl).run("RETRY").get(0).clean()).isTrue();
    outOfTheQueue("RETRY");
  }

  @Test
  void whileAnIntegratorCallIsHeldOtherInvoicesOfTheSeriesAreReservedWithinTwoSeconds()
      throws Exception {
    List<Long> drafts = fx.drafts("HOLD", 6);
    CountDownLatch calling = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    EInvoiceIntegrator held =
        new EInvoiceIntegrator() {
          @Override
          public void submit(Submission s) {
            calling.countDown();
            try {
              release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }

          @Override
          public Optional<RemoteInvoice> lookup(String series, long number) {
            return Optional.empty();
          }
        };
    InvoiceIssuer issuer = fx.issuer(InvoiceIssuerConfig.defaults().withWorkers(1), held);
    ExecutorService one = Executors.newSingleThreadExecutor();
    try {
      var first = issuer.claim(1).get(0);
      Future<?> inFlight = one.submit(() -> issuer.process(first));
      assertThat(calling.await(10, TimeUnit.SECONDS))
          .as("the first call is at the integrator")
          .isTrue();

      long t0 = System.nanoTime();
      InvoiceNumbering numbering = new InvoiceNumbering(fx.dsl);
      List<Long> meanwhile = new ArrayList<>();
      for (long id : drafts.subList(1, 6)) {
        meanwhile.add(numbering.reserve(id).orElseThrow().number());
      }
      Duration took = Duration.ofNanos(System.nanoTime() - t0);
      assertThat(meanwhile).containsExactly(2L, 3L, 4L, 5L, 6L);
      assertThat(took).as("reserved while the call was held").isLessThan(Duration.ofSeconds(2));
      assertThat(inFlight.isDone()).as("the first call is still held").isFalse();

      release.countDown();
      inFlight.get(10, TimeUnit.SECONDS);
    } finally {
      one.shutdownNow();
    }
    assertThat(
            fx.dsl.fetchValue(
                fx.dsl.select(INVOICE.STATUS).from(INVOICE).where(INVOICE.ID.eq(drafts.get(0)))))
        .isEqualTo("ISSUED");
    assertThat(new GapAudit(fx.dsl).run("HOLD").get(0).byStatus())
        .containsEntry(InvoiceStatus.ISSUED, 1)
        .containsEntry(InvoiceStatus.SENDING, 5);
  }

  @Test
  void aNewSeriesReservedFromEightThreadsAtOnceIsOneToNAndRetriesKeepTheirNumbers()
      throws Exception {
    // the series has no counter row: every thread's first reservation finds none at the same
    // moment; each thread reserves 100 drafts, then every draft is reserved again (a retry)
    List<Long> drafts = fx.drafts("MIX", 8 * 100);
    InvoiceNumbering numbering = new InvoiceNumbering(fx.dsl);
    java.util.Map<Long, Long> numberOf = new java.util.concurrent.ConcurrentHashMap<>();
    List<Long> numbers = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        List<Long> mine = drafts.subList(t * 100, (t + 1) * 100);
        running.add(
            pool.submit(
                () -> {
                  go.await();
                  for (long id : mine) {
                    long n = numbering.reserve(id).orElseThrow().number();
                    numbers.add(n);
                    numberOf.put(id, n);
                  }
                  return null;
                }));
      }
      go.countDown();
      awaitAll(running);
    } finally {
      pool.shutdownNow();
    }
    assertOneToEightHundred(numbers);
    for (java.util.Map.Entry<Long, Long> e : numberOf.entrySet()) {
      InvoiceNumbering.Reservation again = numbering.reserve(e.getKey()).orElseThrow();
      assertThat(again.number()).as("reserved twice keeps its number").isEqualTo(e.getValue());
      assertThat(again.fresh()).isFalse();
    }
    assertThat(counterOf("MIX"))
        .as("the counter took exactly the numbers handed out")
        .isEqualTo(801L);
    assertEightHundredReserved("MIX");
    outOfTheQueue("MIX");
  }

  private static void awaitAll(List<Future<?>> running) throws Exception {
    for (Future<?> f : running) {
      f.get();
    }
  }

  /** {@code numbers} are 1..800, each once. */
  private static void assertOneToEightHundred(List<Long> numbers) {
    assertThat(numbers).hasSize(800).doesNotHaveDuplicates();
    assertThat(numbers)
        .containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(1, 800).boxed().toList());
  }

  /** {@code series} holds 800 reserved (SENDING) invoices numbered 1..800 without a gap. */
  private static void assertEightHundredReserved(String series) {
    GapAudit.SeriesReport report = new GapAudit(fx.dsl).run(series).get(0);
    assertThat(report.highest()).isEqualTo(800);
    assertThat(report.clean()).isTrue();
    assertThat(report.byStatus()).containsEntry(InvoiceStatus.SENDING, 800);
  }

  /** The series' counter: the next number it hands out. */
  private static Long counterOf(String series) {
    return fx.dsl.fetchValue(
        fx.dsl
            .select(dev.ordinal.billing.db.Tables.INVOICE_SERIES.NEXT_NO)
            .from(dev.ordinal.billing.db.Tables.INVOICE_SERIES)
            .where(dev.ordinal.billing.db.Tables.INVOICE_SERIES.SERIES.eq(series)));
  }

  /**
   * Keeps a test's reserved invoices away from the issuer queue other tests of this class claim.
   */
  private static void outOfTheQueue(String series) {
    fx.dsl
        .update(INVOICE)
        .set(INVOICE.NEXT_ATTEMPT_AT, java.time.OffsetDateTime.now().plusDays(1))
        .where(INVOICE.SERIES.eq(series))
        .execute();
  }

  @Test
  void aReservationOfAnInvoiceNoLongerWaitingTakesNoNumber() {
    List<Long> drafts = fx.drafts("GUARD", 3);
    InvoiceNumbering numbering = new InvoiceNumbering(fx.dsl);
    fx.dsl
        .update(INVOICE)
        .set(INVOICE.STATUS, InvoiceStatus.CANCELLED.name())
        .where(INVOICE.ID.eq(drafts.get(0)))
        .execute();
    assertThat(numbering.reserve(drafts.get(0))).as("cancelled").isEmpty();
    assertThat(numbering.reserve(-1L)).as("unknown").isEmpty();
    assertThat(numbering.reserve(drafts.get(1)).orElseThrow().number())
        .as("the cancelled draft consumed no number")
        .isEqualTo(1);
    assertThat(numbering.reserve(drafts.get(2)).orElseThrow().number()).isEqualTo(2);
    assertThat(new GapAudit(fx.dsl).run("GUARD").get(0).clean()).isTrue();
    outOfTheQueue("GUARD");
  }
}
