package dev.ordinal.lab.bench;

import static dev.ordinal.billing.db.Tables.INVOICE;

import com.sun.management.OperatingSystemMXBean;
import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.billing.BillingService;
import dev.ordinal.billing.InvoiceNumbering;
import dev.ordinal.messaging.db.DatabaseSettings;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
 * one update of one row); and, with one client, what a reservation costs next to a counter update
 * (time, client CPU, WAL bytes). Rounds alternate the measurements; medians are reported.
 */
public final class NumberingBench {
  static final String SCHEMA = "bench_numbering";
  static final Table<Record> COUNTER = DSL.table(DSL.name("bench_counter"));
  static final Field<Integer> C_ID = DSL.field(DSL.name("id"), SQLDataType.INTEGER.notNull());
  static final Field<Long> C_N = DSL.field(DSL.name("n"), SQLDataType.BIGINT.notNull());

  /**
   * How to run.
   *
   * @param clients closed-loop clients of every measurement
   * @param warmup excluded start of each closed-loop measurement
   * @param measure measured window of each closed-loop measurement
   * @param rounds rounds of the two measurements; medians are reported
   */
  public record Settings(int clients, Duration warmup, Duration measure, int rounds) {
    public static final Settings DEFAULT =
        new Settings(8, Duration.ofSeconds(2), Duration.ofSeconds(5), 3);
    public static final Settings QUICK =
        new Settings(8, Duration.ofSeconds(1), Duration.ofSeconds(3), 1);
  }

  /** One figure with its limit and goal; {@code rounds} are the per-round values. */
  public record Row(String what, double value, String unit, double limit, String goal) {
    public double ratio() {
      return value / limit;
    }
  }

  /** The run's figures, with the PostgreSQL settings they were measured under. */
  public record Report(Map<String, String> database, List<Row> rows) {}

  private NumberingBench() {}

  public static Report run(DatabaseSettings db, Settings s, Consumer<String> progress)
      throws Exception {
    try (HikariDataSource pool = db.withSchema(SCHEMA).pool("bench-numbering", s.clients() + 4);
        DatabaseLoad load = new DatabaseLoad(db)) {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      dsl.dropSchemaIfExists(SCHEMA).cascade().execute();
      BillingService.migrate(pool, SCHEMA);
      dsl.createTableIfNotExists(COUNTER)
          .column(C_ID)
          .column(C_N)
          .constraint(DSL.primaryKey(C_ID))
          .execute();
      dsl.insertInto(COUNTER).set(C_ID, 1).set(C_N, 0L).onConflictDoNothing().execute();
      Map<String, String> database = postgresSettings(dsl);
      InvoiceNumbering numbering = new InvoiceNumbering(dsl);
      List<Double> limits = new ArrayList<>();
      List<Double> singles = new ArrayList<>();
      for (int round = 1; round <= s.rounds(); round++) {
        String tag = "round " + round + "/" + s.rounds() + ": ";
        // every measurement starts from a quiet server: no checkpoint or vacuum of the previous
        // one's writes (or of the drafts just created) lands in its window
        load.quiesce();
        double limit =
            closedLoop(
                s, () -> dsl.update(COUNTER).set(C_N, C_N.plus(1)).where(C_ID.eq(1)).execute());
        limits.add(limit);
        progress.accept(tag + String.format("single-row counter update %,.0f /s", limit));

        // enough drafts for the window at up to 2.5x the limit: a reservation is no faster than
        // the counter update it contains
        int need =
            (int)
                Math.max(
                    10_000,
                    limit * (s.warmup().toMillis() + s.measure().toMillis()) / 1000.0 * 2.5);
        String series = "ONE-" + round;
        ConcurrentLinkedQueue<Long> one =
            new ConcurrentLinkedQueue<>(drafts(dsl, series, need, s.clients()));
        load.quiesce();
        double reservations = closedLoop(s, () -> numbering.reserve(one.remove()));
        singles.add(reservations);
        progress.accept(
            tag
                + String.format(
                    "just-in-time reservations on one series %,.0f /s (%.2f of the limit)",
                    reservations, reservations / limit));

        // the reserved invoices are done with: keep the table small for the next round
        dsl.deleteFrom(INVOICE).execute();
      }
      // where a reservation's time goes, next to the counter's: one client, so each figure is
      // one operation's own cost (with 8 clients on one series every operation also waits for
      // the counter row's lock, held from its update to its commit's flush)
      int profiled = s.rounds() == 1 ? 1_000 : 3_000;
      load.quiesce();
      Profiled counterProfiled =
          profileWithWal(
              dsl,
              profiled,
              () -> dsl.update(COUNTER).set(C_N, C_N.plus(1)).where(C_ID.eq(1)).execute());
      Profile counterCost = counterProfiled.profile();
      ConcurrentLinkedQueue<Long> profileDrafts =
          new ConcurrentLinkedQueue<>(drafts(dsl, "PROFILE", profiled, s.clients()));
      load.quiesce();
      Profiled reserveProfiled =
          profileWithWal(dsl, profiled, () -> numbering.reserve(profileDrafts.remove()));
      Profile reserveCost = reserveProfiled.profile();
      progress.accept(
          String.format(
              "one client: counter update %.0f us, %.0f us client CPU, %.0f WAL bytes;"
                  + " reservation %.0f us, %.0f us client CPU, %.0f WAL bytes",
              counterCost.micros(),
              counterCost.cpuMicros(),
              counterCost.walBytes(),
              reserveCost.micros(),
              reserveCost.cpuMicros(),
              reserveCost.walBytes()));
      double limit = OrderWriteBench.median(limits);
      List<Row> rows = new ArrayList<>();
      rows.add(
          new Row(
              "single-row counter update (limit of one series)" + rounds(limits),
              limit,
              "updates/s",
              limit,
              "-"));
      rows.add(
          new Row(
              "just-in-time reservation, one series" + rounds(singles),
              OrderWriteBench.median(singles),
              "numbers/s",
              limit,
              ">= 0.8"));
      rows.add(
          new Row(
              "one client, time per reservation (limit = per counter update), "
                  + String.format("%,d", profiled)
                  + " each",
              reserveCost.micros(),
              "us",
              counterCost.micros(),
              "-"));
      rows.add(
          new Row(
              "one client, client CPU per reservation (limit = per counter update)",
              reserveCost.cpuMicros(),
              "us",
              counterCost.cpuMicros(),
              "-"));
      rows.add(
          new Row(
              "one client, WAL per reservation (limit = per counter update; by relation, bytes"
                  + " per reservation: "
                  + reserveProfiled.walByRelation()
                  + "; per counter update: "
                  + counterProfiled.walByRelation()
                  + ")",
              reserveCost.walBytes(),
              "bytes",
              counterCost.walBytes(),
              "-"));
      return new Report(database, rows);
    }
  }

  /**
   * {@code n} drafts of {@code series}, inserted 1,000 per statement on {@code writers} threads.
   */
  static List<Long> drafts(DSLContext dsl, String series, int n, int writers) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    try {
      List<Future<List<Long>>> parts = new ArrayList<>();
      for (int start = 0; start < n; start += 1000) {
        int from = start;
        int to = Math.min(n, start + 1000);
        parts.add(pool.submit(() -> insertDrafts(dsl, series, to - from)));
      }
      List<Long> ids = new ArrayList<>(n);
      for (Future<List<Long>> f : parts) {
        ids.addAll(f.get());
      }
      return ids;
    } finally {
      pool.shutdownNow();
    }
  }

  private static List<Long> insertDrafts(DSLContext dsl, String series, int n) {
    OffsetDateTime now = OffsetDateTime.now();
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
    for (int i = 0; i < n; i++) {
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
    return insert.returning(INVOICE.ID).fetch(INVOICE.ID);
  }

  /** One operation's cost: wall time, this client's CPU time, WAL written; means over a run. */
  record Profile(double micros, double cpuMicros, double walBytes) {}

  /**
   * A {@link Profile} and where the WAL of all its operations went, bytes per operation by relation
   * ({@link WalByRelation}, the 10 largest).
   */
  record Profiled(Profile profile, String walByRelation) {}

  /** {@link #profile}, with the WAL of its {@code n} operations (warm-up ones too) by relation. */
  static Profiled profileWithWal(DSLContext dsl, int n, Runnable op) {
    String from = WalByRelation.position(dsl);
    Profile p = profile(dsl, n, op);
    String to = WalByRelation.position(dsl);
    return new Profiled(
        p,
        WalByRelation.between(dsl, from, to)
            .map(b -> WalByRelation.perOperation(b, n, 10))
            .orElse(WalByRelation.UNAVAILABLE));
  }

  /** Runs {@code op} {@code n} times on this thread, after 200 unmeasured ones. */
  static Profile profile(DSLContext dsl, int n, Runnable op) {
    for (int i = 0; i < 200 && i < n / 5; i++) {
      op.run();
    }
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    String lsn = WalByRelation.position(dsl);
    long cpu = threads.getCurrentThreadCpuTime();
    long start = System.nanoTime();
    int runs = n - Math.min(200, n / 5);
    for (int i = 0; i < runs; i++) {
      op.run();
    }
    long wall = System.nanoTime() - start;
    long cpuUsed = threads.getCurrentThreadCpuTime() - cpu;
    Long wal =
        dsl.fetchValue(
            DSL.field(
                "pg_wal_lsn_diff(pg_current_wal_lsn(), {0}::pg_lsn)::bigint",
                Long.class, DSL.val(lsn)));
    return new Profile(wall / 1e3 / runs, cpuUsed / 1e3 / runs, (double) wal / runs);
  }

  /** Closed loop over the settings' clients and windows (see {@link OrderWriteBench#measure}). */
  static double closedLoop(Settings s, OrderWriteBench.Op op) throws Exception {
    return OrderWriteBench.measure(
        op, new OrderWriteBench.Settings(s.clients(), s.warmup(), s.measure(), 1));
  }

  /** The settings that decide what a commit costs, as the server reports them. */
  static Map<String, String> postgresSettings(DSLContext dsl) {
    Map<String, String> settings = new LinkedHashMap<>();
    for (String name :
        List.of("server_version", "fsync", "synchronous_commit", "full_page_writes")) {
      settings.put(
          name, dsl.fetchValue(DSL.field("current_setting({0})", String.class, DSL.val(name))));
    }
    return settings;
  }

  static String rounds(List<Double> values) {
    return values.size() < 2
        ? ""
        : " (rounds " + values.stream().map(v -> String.format("%,.0f", v)).toList() + ")";
  }

  /** Machine and PostgreSQL facts for the head of a report. */
  public static Map<String, String> facts(Map<String, String> database, String stack) {
    Map<String, String> facts = new LinkedHashMap<>();
    long ram =
        ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os
            ? os.getTotalMemorySize() / (1024 * 1024)
            : -1;
    facts.put(
        "Machine",
        String.format(
            "%d cores, %,d MiB RAM, %,d MiB max heap; one JVM (%s)",
            Runtime.getRuntime().availableProcessors(),
            ram,
            Runtime.getRuntime().maxMemory() / (1024 * 1024),
            ManagementFactory.getRuntimeMXBean().getVmVersion()));
    facts.put(
        "PostgreSQL",
        String.format(
            "%s (%s): fsync=%s, synchronous_commit=%s, full_page_writes=%s",
            database.get("server_version"),
            stack,
            database.get("fsync"),
            database.get("synchronous_commit"),
            database.get("full_page_writes")));
    return facts;
  }

  /** The figures as a Markdown table under a title and the facts. */
  public static List<String> table(String title, List<Row> rows, Map<String, String> facts) {
    List<String> lines = BenchReport.section("## " + title);
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
