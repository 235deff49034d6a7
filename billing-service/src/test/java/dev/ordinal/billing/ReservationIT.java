package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.InvoiceNumber;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
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
      for (Future<?> f : running) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(numbers).hasSize(800).doesNotHaveDuplicates();
    assertThat(numbers)
        .containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(1, 800).boxed().toList());
    GapAudit.SeriesReport report = new GapAudit(fx.dsl).run("CONC").get(0);
    assertThat(report.highest()).isEqualTo(800);
    assertThat(report.clean()).isTrue();
    assertThat(report.byStatus()).containsEntry(InvoiceStatus.SENDING, 800);
  }

  @Test
  void aRetryKeepsItsNumberAndBlocksAreConsecutive() {
    List<Long> drafts = fx.drafts("BLOCK", 10);
    InvoiceNumbering numbering = new InvoiceNumbering(fx.dsl);
    assertThat(numbering.reserve(drafts.get(0)).orElseThrow().number()).isEqualTo(1);
    assertThat(numbering.reserve(drafts.get(0)).orElseThrow())
        .as("the same invoice again")
        .satisfies(r -> assertThat(r.number()).isEqualTo(1))
        .satisfies(r -> assertThat(r.fresh()).isFalse());
    InvoiceNumbering.Block block =
        numbering.reserveBlock("BLOCK", drafts.subList(1, 9)).orElseThrow();
    assertThat(block.first()).isEqualTo(2);
    assertThat(block.last()).isEqualTo(9);
    assertThat(numbersOf(drafts.subList(1, 9)))
        .as("the block's drafts hold its numbers in id order")
        .containsExactly(2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
    assertThat(numbering.reserve(drafts.get(9)).orElseThrow().number()).isEqualTo(10);
    assertThat(numbering.reserveBlock("BLOCK", drafts)).as("nothing left to reserve").isEmpty();
    assertThat(new GapAudit(fx.dsl).run("BLOCK").get(0).clean()).isTrue();
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
  void blocksOnANewSeriesFromEightThreadsAtOnceNumberEveryDraftOneToN() throws Exception {
    // the series has no counter row: every thread's first block finds none at the same moment
    List<Long> drafts = fx.drafts("NEWBLOCK", 8 * 5 * 20);
    InvoiceNumbering numbering = new InvoiceNumbering(fx.dsl);
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
                  for (int b = 0; b < 5; b++) {
                    InvoiceNumbering.Block got =
                        numbering
                            .reserveBlock("NEWBLOCK", mine.subList(b * 20, b * 20 + 20))
                            .orElseThrow();
                    assertThat(got.size())
                        .as("a block of 20 drafts is numbered whole")
                        .isEqualTo(20);
                    LongStream.rangeClosed(got.first(), got.last()).forEach(numbers::add);
                  }
                  return null;
                }));
      }
      go.countDown();
      for (Future<?> f : running) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(numbers)
        .containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(1, 800).boxed().toList());
    assertThat(new GapAudit(fx.dsl).run("NEWBLOCK").get(0).clean()).isTrue();
  }

  @Test
  void singleAndBlockReservationsInterleavedOnEightThreadsNumberExactlyOneToN() throws Exception {
    // 8 threads on one new series: each makes 100 reservations, 90 of one draft and 10 blocks of
    // 20 interleaved, then every single draft is reserved again (a retry): 1..N, each number once
    List<Long> drafts = fx.drafts("MIX", 8 * 290);
    InvoiceNumbering numbering = new InvoiceNumbering(fx.dsl);
    java.util.Map<Long, Long> numberOf = new java.util.concurrent.ConcurrentHashMap<>();
    List<Long> numbers = Collections.synchronizedList(new ArrayList<>());
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        List<Long> mine = drafts.subList(t * 290, (t + 1) * 290);
        running.add(
            pool.submit(
                () -> {
                  int next = 0;
                  for (int i = 0; i < 100; i++) {
                    if (i % 10 == 9) {
                      numbering
                          .reserveBlock("MIX", mine.subList(next, next + 20))
                          .ifPresent(
                              b ->
                                  LongStream.rangeClosed(b.first(), b.last())
                                      .forEach(numbers::add));
                      next += 20;
                    } else {
                      long id = mine.get(next++);
                      long n = numbering.reserve(id).orElseThrow().number();
                      numbers.add(n);
                      numberOf.put(id, n);
                    }
                  }
                  return null;
                }));
      }
      for (Future<?> f : running) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(numbers).hasSize(8 * 290).doesNotHaveDuplicates();
    assertThat(numbers)
        .containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(1, 2320).boxed().toList());
    for (java.util.Map.Entry<Long, Long> e : numberOf.entrySet()) {
      InvoiceNumbering.Reservation again = numbering.reserve(e.getKey()).orElseThrow();
      assertThat(again.number()).as("reserved twice keeps its number").isEqualTo(e.getValue());
      assertThat(again.fresh()).isFalse();
    }
    assertThat(numbering.reserveBlock("MIX", drafts)).as("nothing left to reserve").isEmpty();
    assertThat(counterOf("MIX"))
        .as("the counter took exactly the numbers handed out")
        .isEqualTo(2321L);
    GapAudit.SeriesReport report = new GapAudit(fx.dsl).run("MIX").get(0);
    assertThat(report.highest()).isEqualTo(2320);
    assertThat(report.clean()).isTrue();
    assertThat(report.byStatus()).containsEntry(InvoiceStatus.SENDING, 2320);
    outOfTheQueue("MIX");
  }

  /** The series' counter: the next number it hands out. */
  private static Long counterOf(String series) {
    return fx.dsl.fetchValue(
        fx.dsl
            .select(dev.ordinal.billing.db.Tables.INVOICE_SERIES.NEXT_NO)
            .from(dev.ordinal.billing.db.Tables.INVOICE_SERIES)
            .where(dev.ordinal.billing.db.Tables.INVOICE_SERIES.SERIES.eq(series)));
  }

  /** The numbers of {@code ids}, in id order, wherever each is held. */
  private static List<Long> numbersOf(List<Long> ids) {
    return fx.dsl
        .select(InvoiceNumbering.NUMBER)
        .from(INVOICE)
        .where(INVOICE.ID.in(ids))
        .orderBy(INVOICE.ID)
        .fetch(0, Long.class);
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
  void aBlocksNumbersReachTheInvoicesAtTheIssuersClaimAndTheIntegratorHoldsEachUnderItsInvoice(
      TestNamespace ns) throws Exception {
    // a schema of its own: the issuer below drains every due invoice it finds
    try (BillingFixture own = new BillingFixture(ns, "blockissue");
        IntegratorSimulator sim = BillingFixture.instantIntegrator()) {
      List<Long> drafts = own.drafts("BISSUE", 30);
      InvoiceNumbering numbering = new InvoiceNumbering(own.dsl);
      assertThat(numbering.reserve(drafts.get(0)).orElseThrow().number()).isEqualTo(1);
      assertThat(numbering.reserveBlock("BISSUE", drafts.subList(1, 21)))
          .hasValueSatisfying(b -> assertThat(b.first()).isEqualTo(2))
          .hasValueSatisfying(b -> assertThat(b.last()).isEqualTo(21));
      for (long id : drafts.subList(21, 30)) {
        numbering.reserve(id).orElseThrow();
      }
      // before any claim: the block's numbers are held by the block, not yet by the column
      assertThat(
              own.dsl.fetchCount(
                  INVOICE, INVOICE.BLOCK_ID.isNotNull().and(INVOICE.NUMBER.isNull())))
          .isEqualTo(20);
      assertThat(
              own.dsl
                  .select(InvoiceNumbering.NUMBER)
                  .from(INVOICE)
                  .where(INVOICE.ID.in(drafts.subList(1, 21)))
                  .orderBy(1)
                  .fetch(0, Long.class))
          .containsExactlyElementsOf(LongStream.rangeClosed(2, 21).boxed().toList());
      assertThat(numbering.reserve(drafts.get(5)).orElseThrow())
          .as("a block's draft reserved again keeps the block's number")
          .satisfies(r -> assertThat(r.number()).isEqualTo(6))
          .satisfies(r -> assertThat(r.fresh()).isFalse());
      GapAudit.SeriesReport before = new GapAudit(own.dsl).run("BISSUE").get(0);
      assertThat(before.highest()).isEqualTo(30);
      assertThat(before.clean()).isTrue();

      InvoiceIssuer issuer = own.issuer(InvoiceIssuerConfig.defaults(), sim.baseUri());
      assertThat(issuer.drain()).isEqualTo(30);

      var issued =
          own.dsl
              .select(INVOICE.NUMBER, INVOICE.ORDER_ID, INVOICE.STATUS)
              .from(INVOICE)
              .where(INVOICE.SERIES.eq("BISSUE"))
              .orderBy(INVOICE.NUMBER)
              .fetch();
      assertThat(issued).extracting(r -> r.value3()).containsOnly("ISSUED").hasSize(30);
      assertThat(issued)
          .as("every number is on its invoice's own column once claimed")
          .extracting(r -> r.value1())
          .containsExactlyElementsOf(LongStream.rangeClosed(1, 30).boxed().toList());
      Map<InvoiceNumber, String> held = sim.accepted();
      assertThat(held).hasSize(30);
      for (var r : issued) {
        assertThat(held.get(new InvoiceNumber("BISSUE", r.value1())))
            .as("the integrator holds %s under its own invoice", r.value1())
            .isEqualTo(InvoiceNumbering.invoiceId(r.value2()).toString());
      }
      assertThat(sim.duplicateAttempts()).isZero();
      GapAudit.SeriesReport after = new GapAudit(own.dsl).run("BISSUE").get(0);
      assertThat(after.clean()).isTrue();
      assertThat(after.byStatus()).containsEntry(InvoiceStatus.ISSUED, 30);
    }
  }

  @Test
  void aDraftTheIssuerClaimedBeforeABlockNumberedItIsIssuedUnderTheBlocksNumber(TestNamespace ns)
      throws Exception {
    try (BillingFixture own = new BillingFixture(ns, "blockclaimed");
        IntegratorSimulator sim = BillingFixture.instantIntegrator()) {
      List<Long> drafts = own.drafts("BCLAIM", 3);
      InvoiceIssuer issuer =
          own.issuer(InvoiceIssuerConfig.defaults().withWorkers(1), sim.baseUri());
      // the issuer claims the first draft (no number yet); a block numbers all three meanwhile
      var claimed = issuer.claim(1).get(0);
      assertThat(claimed.getId()).isEqualTo(drafts.get(0));
      assertThat(claimed.getNumber()).isNull();
      assertThat(new InvoiceNumbering(own.dsl).reserveBlock("BCLAIM", drafts))
          .hasValueSatisfying(b -> assertThat(b.size()).isEqualTo(3));
      issuer.process(claimed);
      var first =
          own.dsl
              .select(INVOICE.STATUS, INVOICE.NUMBER)
              .from(INVOICE)
              .where(INVOICE.ID.eq(drafts.get(0)))
              .fetchOne();
      assertThat(first.value1()).isEqualTo("ISSUED");
      assertThat(first.value2()).as("issued under the block's number, on its column").isEqualTo(1);
      assertThat(sim.accepted()).containsOnlyKeys(new InvoiceNumber("BCLAIM", 1));
      GapAudit.SeriesReport audit = new GapAudit(own.dsl).run("BCLAIM").get(0);
      assertThat(audit.clean()).isTrue();
      assertThat(audit.highest()).isEqualTo(3);
    }
  }

  @Test
  void aDraftTakenWhileABlockWritesTheOthersLeavesNoHoleInTheBlock() throws Exception {
    List<Long> drafts = fx.drafts("HOLE", 10);
    InvoiceNumbering numbering = new InvoiceNumbering(fx.dsl);
    long taken = drafts.get(4);
    ExecutorService one = Executors.newSingleThreadExecutor();
    try (java.sql.Connection holder = fx.pool.getConnection()) {
      holder.setAutoCommit(false);
      DSLContext held = DSL.using(holder, SQLDialect.POSTGRES);
      // another transaction holds one draft: the block's snapshot sees it as a draft, its write
      // waits for it
      held.selectFrom(INVOICE).where(INVOICE.ID.eq(taken)).forUpdate().fetch();
      Future<Optional<InvoiceNumbering.Block>> block =
          one.submit(() -> numbering.reserveBlock("HOLE", drafts));
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (fx.dsl.fetchCount(
              DSL.table(DSL.name("pg_stat_activity")),
              DSL.field(DSL.name("wait_event_type"), String.class)
                  .eq("Lock")
                  .and(DSL.field(DSL.name("query"), String.class).contains("block_offset")))
          == 0) {
        assertThat(System.nanoTime()).as("the block waits for the held draft").isLessThan(until);
        Thread.onSpinWait();
      }
      // the held draft is cancelled: the block skips it once it may go on
      held.update(INVOICE)
          .set(INVOICE.STATUS, InvoiceStatus.CANCELLED.name())
          .where(INVOICE.ID.eq(taken))
          .execute();
      holder.commit();
      assertThat(block.get(10, TimeUnit.SECONDS))
          .hasValueSatisfying(b -> assertThat(b.first()).isEqualTo(1))
          .hasValueSatisfying(b -> assertThat(b.size()).isEqualTo(9));
    } finally {
      one.shutdownNow();
    }
    assertThat(
            fx.dsl
                .select(INVOICE.BLOCK_OFFSET)
                .from(INVOICE)
                .where(INVOICE.SERIES.eq("HOLE"))
                .and(INVOICE.BLOCK_OFFSET.isNotNull())
                .orderBy(INVOICE.BLOCK_OFFSET)
                .fetch(INVOICE.BLOCK_OFFSET))
        .as("the block's offsets are exactly 1..9")
        .containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9);
    assertThat(
            fx.dsl
                .select(InvoiceNumbering.NUMBER)
                .from(INVOICE)
                .where(INVOICE.ID.eq(taken))
                .fetchOne(0, Long.class))
        .as("the cancelled draft has no number")
        .isNull();
    assertThat(counterOf("HOLE"))
        .as("the counter took exactly the nine numbers handed out")
        .isEqualTo(10L);
    assertThat(
            fx.dsl.fetchCount(
                dev.ordinal.billing.db.Tables.NUMBER_BLOCK,
                dev.ordinal.billing.db.Tables.NUMBER_BLOCK.SERIES.eq("HOLE")))
        .as("one range recorded: the statement that met the hole left nothing")
        .isEqualTo(1);
    GapAudit.SeriesReport report = new GapAudit(fx.dsl).run("HOLE").get(0);
    assertThat(report.highest()).isEqualTo(9);
    assertThat(report.clean()).isTrue();
    outOfTheQueue("HOLE");
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
    assertThat(numbering.reserveBlock("GUARD", drafts))
        .hasValueSatisfying(b -> assertThat(b.first()).isEqualTo(2))
        .hasValueSatisfying(b -> assertThat(b.size()).isEqualTo(1));
    assertThat(new GapAudit(fx.dsl).run("GUARD").get(0).clean()).isTrue();
    outOfTheQueue("GUARD");
  }
}
