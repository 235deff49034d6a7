package dev.ordinal.lab.bench;

import static dev.ordinal.billing.db.Tables.INVOICE;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.billing.BillingApp;
import dev.ordinal.billing.InvoiceIssuerConfig;
import dev.ordinal.contracts.AggregateType;
import dev.ordinal.lab.demo.LocalSystem;
import dev.ordinal.lab.sim.IntegratorFaults;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.PaymentGatewayFaults;
import dev.ordinal.lab.sim.PaymentGatewaySimulator;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.order.NewOrder;
import dev.ordinal.order.OrderService;
import dev.ordinal.order.OrderServiceApp;
import dev.ordinal.relay.RelayApp;
import dev.ordinal.relay.RelayConfig;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The whole path on one stack, each service started through its runtime as deployed ({@link
 * OrderServiceApp}, {@link RelayApp}, {@link BillingApp}), open loop at a fixed rate: {@link
 * OrderService#place} (order and outbox row in one transaction) → CDC relay → Kafka → billing's
 * inbox consumer (draft invoice) → invoice issuer → integrator simulator → {@code ISSUED}.
 * Latencies from each order's intended place time to the draft (consumer applied) and to the
 * invoice issued, from the invoice's timestamps; achieved rates over the measured window next to
 * the offered rate.
 */
public final class E2eBench {
  static final String ORDER_SCHEMA = "bench_e2e_orders";
  static final String BILLING_SCHEMA = "bench_e2e_billing";
  static final String SLOT = "bench_e2e";
  static final int WRITERS = 4;
  static final int CONCURRENCY = 4;
  static final int ISSUER_WORKERS = 4;
  static final Duration START_TIMEOUT = Duration.ofSeconds(60);
  static final Duration ISSUE_TIMEOUT = Duration.ofSeconds(60);

  /**
   * How to run.
   *
   * @param rate orders per second offered, open loop
   * @param warmup seconds of orders before the measured ones, excluded
   * @param measure seconds of measured orders
   * @param integratorMin the integrator simulator's shortest answer
   * @param integratorMax its longest (uniform in between, no faults)
   */
  public record Settings(
      int rate, Duration warmup, Duration measure, Duration integratorMin, Duration integratorMax) {
    public static final Settings DEFAULT =
        new Settings(
            50,
            Duration.ofSeconds(5),
            Duration.ofSeconds(30),
            Duration.ofMillis(5),
            Duration.ofMillis(20));
    public static final Settings QUICK =
        new Settings(
            50,
            Duration.ofSeconds(2),
            Duration.ofSeconds(8),
            Duration.ofMillis(5),
            Duration.ofMillis(20));

    public Settings {
      if (rate < 1 || rate > 2_000) {
        throw new IllegalArgumentException("rate must be 1 to 2,000 orders/s, not " + rate);
      }
      if (warmup == null || warmup.isNegative() || warmup.toSeconds() > 600) {
        throw new IllegalArgumentException(
            "warmup must be 0 to 600 seconds, not " + (warmup == null ? null : warmup.toSeconds()));
      }
      if (measure == null || measure.toSeconds() < 1 || measure.toSeconds() > 600) {
        throw new IllegalArgumentException(
            "seconds must be 1 to 600, not " + (measure == null ? null : measure.toSeconds()));
      }
      if (integratorMin == null
          || integratorMax == null
          || integratorMin.isNegative()
          || integratorMax.compareTo(integratorMin) < 0) {
        throw new IllegalArgumentException(
            "the integrator's latency must be 0 <= min <= max, not "
                + integratorMin
                + " to "
                + integratorMax);
      }
    }

    int warmupOrders() {
      return (int) (rate * warmup.toMillis() / 1000);
    }

    int total() {
      return warmupOrders() + (int) (rate * measure.toMillis() / 1000);
    }
  }

  /**
   * Everything measured.
   *
   * @param applied intended place time → draft invoice written by the consumer
   * @param issued intended place time → invoice {@code ISSUED}
   * @param commitToIssued the place call returning → invoice {@code ISSUED}
   * @param placedRate orders committed per second in the measured window
   * @param issuedRate invoices issued per second in the measured window
   * @param notIssued measured orders without an issued invoice when the wait ended
   */
  public record Report(
      Settings settings,
      BenchReport.Latency applied,
      BenchReport.Latency issued,
      BenchReport.Latency commitToIssued,
      double placedRate,
      double issuedRate,
      long notIssued) {}

  private E2eBench() {}

  public static Report run(
      DatabaseSettings db, String bootstrap, Settings s, Consumer<String> progress)
      throws Exception {
    String prefix = "bench_e2e_" + Long.toString(System.currentTimeMillis() % 1_000_000_000L, 36);
    String topic = AggregateType.ORDER.topic(prefix);
    String bulkTopic = AggregateType.ORDER_BULK.topic(prefix);
    try (HikariDataSource admin = db.pool("bench-e2e-admin", 1)) {
      DSLContext a = DSL.using(admin, SQLDialect.POSTGRES);
      cleanup(a);
      progress.accept(
          "starting order-service, the relay, billing (each through its runtime, as deployed)"
              + " and the integrator ...");
      try (LocalSystem system =
          LocalSystem.on(db, bootstrap)
              .integrator(
                  new IntegratorSimulator(
                      0,
                      IntegratorFaults.defaults()
                          .withoutFaults()
                          .withLatency(s.integratorMin(), s.integratorMax())))
              .gateway(
                  new PaymentGatewaySimulator(
                      0,
                      PaymentGatewayFaults.defaults()
                          .withTransientFailureRate(0)
                          .withDroppedAfterCaptureRate(0)
                          .withLatency(Duration.ofMillis(5), Duration.ofMillis(20))))
              .managementOff()
              .orderService(o -> o.schema(ORDER_SCHEMA).port(0).poolSize(WRITERS + 2))
              .billing(
                  b ->
                      b.schema(BILLING_SCHEMA)
                          .topicPrefix(prefix)
                          .group(prefix + "-billing")
                          .concurrency(CONCURRENCY)
                          .issuerWorkers(ISSUER_WORKERS))
              .relay(r -> r.schemas(List.of(ORDER_SCHEMA)).slot(SLOT, SLOT).instanceId(SLOT))
              .start()) {
        RelayApp relay = system.relay();
        BillingApp billing = system.billing();
        OrderServiceApp orderService = system.orders();
        relay.relays().get(0).awaitStreaming(START_TIMEOUT);
        if (!billing.awaitAssignment(START_TIMEOUT)) {
          throw new IllegalStateException("The billing consumer got no partitions in 60 s");
        }
        DSLContext billingDb = billing.dsl();
        progress.accept(
            String.format(
                "placing %d orders/s open loop: %d s warm-up, then %d s measured ...",
                s.rate(), s.warmup().toSeconds(), s.measure().toSeconds()));
        Placed p = placeOpenLoop(orderService.orders(), s);
        long deadline = System.nanoTime() + ISSUE_TIMEOUT.toNanos();
        while (billingDb.fetchCount(INVOICE, INVOICE.STATUS.eq("ISSUED")) < s.total()
            && System.nanoTime() < deadline) {
          TimeUnit.MILLISECONDS.sleep(50);
        }
        Report r = summarize(s, p, billingDb);
        progress.accept(
            String.format(
                "placed → issued p50 %.1f ms, p99 %.1f ms, max %.1f ms; issued %.1f/s of %d/s"
                    + " offered%s",
                r.issued().p50Ms(),
                r.issued().p99Ms(),
                r.issued().maxMs(),
                r.issuedRate(),
                s.rate(),
                r.notIssued() == 0 ? "" : " (" + r.notIssued() + " not issued)"));
        return r;
      } finally {
        cleanup(a);
        LanesBench.deleteTopics(bootstrap, List.of(topic, bulkTopic), progress);
      }
    }
  }

  /** Intended and commit times (wall clock, microseconds) and the order ids, by order index. */
  private record Placed(UUID[] ids, long[] intended, long[] committed) {}

  private static Placed placeOpenLoop(OrderService orders, Settings s) throws Exception {
    int total = s.total();
    UUID[] ids = new UUID[total];
    long[] intended = new long[total];
    long[] committed = new long[total];
    double period = 1e9 / s.rate();
    AtomicInteger next = new AtomicInteger();
    ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
    try {
      long start = System.nanoTime() + Duration.ofMillis(100).toNanos();
      List<Future<?>> running = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        running.add(
            writers.submit(
                () -> {
                  for (int i = next.getAndIncrement(); i < total; i = next.getAndIncrement()) {
                    long due = start + (long) (i * period);
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                      TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    UUID id =
                        orders
                            .place(NewOrder.single("bench", "EUR", BigDecimal.valueOf(1250, 2)))
                            .orderId();
                    committed[i] = LanesBench.wallMicros(System.nanoTime());
                    intended[i] = LanesBench.wallMicros(due);
                    ids[i] = id;
                  }
                  return null;
                }));
      }
      for (Future<?> f : running) {
        f.get();
      }
    } finally {
      writers.shutdownNow();
    }
    return new Placed(ids, intended, committed);
  }

  private static Report summarize(Settings s, Placed p, DSLContext billingDb) {
    Map<UUID, Integer> index = new HashMap<>();
    for (int i = s.warmupOrders(); i < p.ids().length; i++) {
      index.put(p.ids()[i], i);
    }
    long windowStart = p.intended()[s.warmupOrders()];
    long windowEnd = windowStart + s.measure().toNanos() / 1000;
    Histogram applied = LanesBench.histogram();
    Histogram issued = LanesBench.histogram();
    Histogram commitToIssued = LanesBench.histogram();
    long issuedInWindow = 0;
    long notIssued = index.size();
    for (var row :
        billingDb
            .select(INVOICE.ORDER_ID, INVOICE.CREATED_AT, INVOICE.ISSUED_AT)
            .from(INVOICE)
            .fetch()) {
      if (row.value3() != null) {
        long at = LanesBench.micros(row.value3());
        if (at >= windowStart && at < windowEnd) {
          issuedInWindow++;
        }
      }
      Integer i = index.get(row.value1());
      if (i == null) {
        continue;
      }
      applied.recordValue(
          LanesBench.clamp(applied, LanesBench.micros(row.value2()) - p.intended()[i]));
      if (row.value3() != null) {
        notIssued--;
        long at = LanesBench.micros(row.value3());
        issued.recordValue(LanesBench.clamp(issued, at - p.intended()[i]));
        commitToIssued.recordValue(LanesBench.clamp(commitToIssued, at - p.committed()[i]));
      }
    }
    long placedInWindow = 0;
    for (long c : p.committed()) {
      if (c >= windowStart && c < windowEnd) {
        placedInWindow++;
      }
    }
    double seconds = s.measure().toMillis() / 1000.0;
    return new Report(
        s,
        BenchReport.Latency.of(applied),
        BenchReport.Latency.of(issued),
        BenchReport.Latency.of(commitToIssued),
        placedInWindow / seconds,
        issuedInWindow / seconds,
        notIssued);
  }

  /** Drops what a run made, or an earlier, interrupted run left behind. */
  private static void cleanup(DSLContext admin) {
    RelayStage.dropSlotAndPublication(admin, SLOT);
    admin.dropSchemaIfExists(ORDER_SCHEMA).cascade().execute();
    admin.dropSchemaIfExists(BILLING_SCHEMA).cascade().execute();
  }

  // ---- the report ----

  /** The section as Markdown: the path, the settings, latencies and the achieved rate. */
  public static List<String> markdown(Report r, String when) {
    Settings s = r.settings();
    List<String> md = BenchReport.section("## End to end (" + when + ")");
    md.add(
        String.format(
            "The whole path on one stack, each service started through its runtime as deployed"
                + " (`OrderServiceApp`, `RelayApp`, `BillingApp`): `OrderService.place` (order,"
                + " line and outbox row in one durable transaction; %d writer threads) → CDC relay (embedded Debezium, as"
                + " shipped: poll %d ms) → Kafka → billing's inbox consumer (concurrency %d,"
                + " priority lanes as in the demo) → invoice issuer (%d workers, queue polled every"
                + " %d ms as shipped) → integrator simulator (%d-%d ms, no faults) → `ISSUED`."
                + " Open loop at %d orders/s: order i is due at start + i / rate whatever happened"
                + " before; latencies from that intended time (so a slow commit counts), to the"
                + " draft invoice's `created_at` (consumer applied) and to its `issued_at`, both"
                + " taken inside their transactions just before the commit; HdrHistogram. %d s"
                + " warm-up excluded, then %d s measured. Rates: commits and `issued_at` within"
                + " the measured window, per second.",
            WRITERS,
            RelayConfig.DEFAULT_POLL_INTERVAL.toMillis(),
            CONCURRENCY,
            ISSUER_WORKERS,
            InvoiceIssuerConfig.DEFAULT_POLL_INTERVAL.toMillis(),
            s.integratorMin().toMillis(),
            s.integratorMax().toMillis(),
            s.rate(),
            s.warmup().toSeconds(),
            s.measure().toSeconds()));
    md.add("");
    md.add("| path | orders | p50 ms | p99 ms | max ms |");
    md.add("|---|---:|---:|---:|---:|");
    md.add(row("placed → consumer applied (draft invoice)", r.applied(), 0));
    md.add(row("placed → invoice issued", r.issued(), r.notIssued()));
    md.add(row("commit returned → invoice issued", r.commitToIssued(), r.notIssued()));
    md.add("");
    md.add("| rate | orders/s | ratio to offered | goal |");
    md.add("|---|---:|---:|---|");
    md.add(String.format("| offered (limit) | %d | 1.00 | |", s.rate()));
    md.add(
        String.format(
            "| placed (committed) | %.1f | %.2f | |", r.placedRate(), r.placedRate() / s.rate()));
    md.add(
        String.format(
            "| invoices issued | %.1f | %.2f | >= 1.0 (keeps up) |",
            r.issuedRate(), r.issuedRate() / s.rate()));
    md.add("");
    md.add(
        "No published anchor for the whole path; its parts are compared with theirs in the relay"
            + " and lanes sections.");
    return md;
  }

  private static String row(String what, BenchReport.Latency l, long notIssued) {
    return String.format(
        "| %s | %,d%s | %s |",
        what, l.count(), notIssued == 0 ? "" : " (" + notIssued + " missing)", l.cells());
  }
}
