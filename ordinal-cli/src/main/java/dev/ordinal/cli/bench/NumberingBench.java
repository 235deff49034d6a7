package dev.ordinal.cli.bench;

import static dev.ordinal.billing.db.Tables.INVOICE;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.billing.BillingService;
import dev.ordinal.billing.HttpEInvoiceIntegrator;
import dev.ordinal.billing.InvoiceIssuer;
import dev.ordinal.billing.InvoiceIssuerConfig;
import dev.ordinal.billing.InvoiceNumbering;
import dev.ordinal.infra.sim.IntegratorFaults;
import dev.ordinal.infra.sim.IntegratorSimulator;
import dev.ordinal.messaging.DatabaseSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * Gapless numbering next to its limit, in one run on one PostgreSQL: reservations per second on one
 * series vs the single-row counter update rate (the physical limit of one series: every number is
 * one update of one row); numbers per second with block reservation; invoices per second through a
 * 200 ms integrator at 1, 4 and 16 calls in flight vs in-flight / latency.
 */
public final class NumberingBench {
  static final String SCHEMA = "bench_numbering";
  static final Table<Record> COUNTER = DSL.table(DSL.name("bench_counter"));
  static final Field<Integer> C_ID = DSL.field(DSL.name("id"), SQLDataType.INTEGER.notNull());
  static final Field<Long> C_N = DSL.field(DSL.name("n"), SQLDataType.BIGINT.notNull());

  /** How to run. */
  public record Settings(int clients, Duration warmup, Duration measure, Duration latency) {
    public static final Settings DEFAULT =
        new Settings(8, Duration.ofSeconds(2), Duration.ofSeconds(5), Duration.ofMillis(200));
    public static final Settings QUICK =
        new Settings(8, Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofMillis(200));
  }

  /** One figure with its limit and goal. */
  public record Row(String what, double value, String unit, double limit, String goal) {
    public double ratio() {
      return value / limit;
    }
  }

  private NumberingBench() {}

  public static List<Row> run(DatabaseSettings db, Settings s, Consumer<String> progress)
      throws Exception {
    try (HikariDataSource pool = db.withSchema(SCHEMA).pool("bench-numbering", s.clients() + 20)) {
      BillingService.migrate(pool, SCHEMA);
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      dsl.createTableIfNotExists(COUNTER)
          .column(C_ID)
          .column(C_N)
          .constraint(DSL.primaryKey(C_ID))
          .execute();
      dsl.insertInto(COUNTER).set(C_ID, 1).set(C_N, 0L).onConflictDoNothing().execute();
      List<Row> rows = new ArrayList<>();

      double limit =
          closedLoop(
              s, () -> dsl.update(COUNTER).set(C_N, C_N.plus(1)).where(C_ID.eq(1)).execute());
      progress.accept(String.format("single-row counter update: %,.0f updates/s", limit));
      rows.add(
          new Row(
              "single-row counter update (limit of one series)", limit, "updates/s", limit, "-"));

      InvoiceNumbering numbering = new InvoiceNumbering(dsl, Clock.systemUTC());
      int need =
          (int) Math.max(20_000, limit * (s.warmup().toSeconds() + s.measure().toSeconds()) * 1.5);
      ConcurrentLinkedQueue<Long> singles =
          new ConcurrentLinkedQueue<>(drafts(dsl, "BENCH-1", need));
      progress.accept("created " + need + " drafts for series BENCH-1");
      double reservations = closedLoop(s, () -> numbering.reserve(singles.remove()));
      progress.accept(String.format("reservations on one series: %,.0f /s", reservations));
      rows.add(
          new Row(
              "just-in-time reservation, one series", reservations, "numbers/s", limit, ">= 0.8"));

      int block = 100;
      ConcurrentLinkedQueue<List<Long>> blocks = new ConcurrentLinkedQueue<>();
      List<Long> many = drafts(dsl, "BENCH-B", need * 2);
      for (int i = 0; i + block <= many.size(); i += block) {
        blocks.add(many.subList(i, i + block));
      }
      double blockRate =
          closedLoop(s, () -> numbering.reserveBlock("BENCH-B", blocks.remove())) * block;
      progress.accept(
          String.format("block reservation (%d per commit): %,.0f numbers/s", block, blockRate));
      rows.add(
          new Row(
              "block reservation, " + block + " per commit",
              blockRate,
              "numbers/s",
              limit,
              ">= 50"));

      // the reservation phases leave drafts and reserved-only invoices behind: take them out of the
      // issuer's queue, accounted for, so the sending phase sends only its own
      dsl.update(INVOICE)
          .set(INVOICE.STATUS, "CANCELLED")
          .where(INVOICE.STATUS.eq("DRAFT"))
          .execute();
      dsl.update(INVOICE)
          .set(INVOICE.STATUS, "VOIDED")
          .set(INVOICE.VOID_REASON, "benchmark: reserved only")
          .where(INVOICE.STATUS.eq("SENDING"))
          .execute();
      try (IntegratorSimulator sim =
          new IntegratorSimulator(
                  0,
                  IntegratorFaults.defaults().withoutFaults().withLatency(s.latency(), s.latency()))
              .start()) {
        for (int inFlight : new int[] {1, 4, 16}) {
          String series = "SEND-" + inFlight;
          int count =
              (int)
                  Math.max(
                      inFlight * 10, inFlight * s.measure().toMillis() / s.latency().toMillis());
          drafts(dsl, series, count);
          InvoiceIssuer issuer =
              new InvoiceIssuer(
                  InvoiceIssuerConfig.defaults().withWorkers(inFlight),
                  dsl,
                  new HttpEInvoiceIntegrator(sim.baseUri(), Duration.ofSeconds(10)),
                  new SimpleMeterRegistry(),
                  Clock.systemUTC());
          long t0 = System.nanoTime();
          issuer.drain();
          double seconds = (System.nanoTime() - t0) / 1e9;
          double rate = issuer.issued() / seconds;
          double ideal = inFlight * 1000.0 / s.latency().toMillis();
          progress.accept(
              String.format("%d in flight: %,.1f invoices/s (ideal %,.1f)", inFlight, rate, ideal));
          rows.add(
              new Row(
                  "invoices through a "
                      + s.latency().toMillis()
                      + " ms integrator, "
                      + inFlight
                      + " in flight",
                  rate,
                  "invoices/s",
                  ideal,
                  ">= 0.9"));
        }
      }
      return rows;
    }
  }

  private static List<Long> drafts(DSLContext dsl, String series, int n) {
    OffsetDateTime now = OffsetDateTime.now();
    List<Long> ids = new ArrayList<>(n);
    for (int start = 0; start < n; start += 1000) {
      var insert =
          dsl.insertInto(
              INVOICE,
              INVOICE.ORDER_ID,
              INVOICE.CUSTOMER_ID,
              INVOICE.CURRENCY,
              INVOICE.TOTAL,
              INVOICE.SERIES,
              INVOICE.STATUS,
              INVOICE.SOURCE_MESSAGE_ID,
              INVOICE.CREATED_AT);
      for (int i = start; i < Math.min(n, start + 1000); i++) {
        insert =
            insert.values(
                UUID.randomUUID(),
                "bench",
                "EUR",
                new BigDecimal("10.00"),
                series,
                "DRAFT",
                "bench-" + UUID.randomUUID(),
                now);
      }
      ids.addAll(insert.returning(INVOICE.ID).fetch(INVOICE.ID));
    }
    return ids;
  }

  /** Closed loop over the settings' clients and windows (see {@link OrderWriteBench#measure}). */
  static double closedLoop(Settings s, OrderWriteBench.Op op) throws Exception {
    return OrderWriteBench.measure(
        op, new OrderWriteBench.Settings(s.clients(), s.warmup(), s.measure(), 1));
  }

  /** The figures as a Markdown table. */
  public static List<String> table(List<Row> rows, Map<String, String> facts) {
    List<String> lines = new ArrayList<>();
    facts.forEach((k, v) -> lines.add(k + ": " + v + "  "));
    lines.add("");
    lines.add("| measured | value | unit | ratio to its limit | goal |");
    lines.add("|---|---:|---|---:|---|");
    for (Row r : rows) {
      lines.add(
          String.format(
              "| %s | %,.1f | %s | %.2f | %s |",
              r.what(), r.value(), r.unit(), r.ratio(), r.goal()));
    }
    return lines;
  }
}
