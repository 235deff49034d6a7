package dev.ordinal.lab.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.order.ApiAuth;
import dev.ordinal.order.NewOrder;
import dev.ordinal.order.OrderClient;
import dev.ordinal.order.OrderService;
import dev.ordinal.order.OrderServiceApp;
import dev.ordinal.order.OrderServiceSettings;
import dev.ordinal.runtime.ManagementSettings;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiFunction;
import java.util.function.ToDoubleFunction;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.JSONB;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * Orders per second through the HTTP API and through the write function alone, next to the raw
 * single-row insert rate of the same PostgreSQL, measured in the same run with the same number of
 * closed-loop clients. Rounds interleave the three so drift on a shared machine hits all of them;
 * the medians are reported.
 */
public final class OrderWriteBench {
  static final String SCHEMA = "bench_orders";
  static final Table<Record> RAW = DSL.table(DSL.name("bench_raw"));
  static final Field<UUID> RAW_ID = DSL.field(DSL.name("id"), SQLDataType.UUID.notNull());
  static final Field<JSONB> RAW_PAYLOAD =
      DSL.field(DSL.name("payload"), SQLDataType.JSONB.notNull());

  /** How to run. */
  public record Settings(int clients, Duration warmup, Duration measure, int rounds) {}

  /** One line of the result. */
  public record Figure(String name, String unit, double median, List<Double> rounds) {}

  /**
   * What ran and what it gave; {@code settings} describes the database; {@code notes} says what was
   * not measured and why, or how the load from another process was made.
   */
  public record Report(
      Map<String, String> database, Settings settings, List<Figure> figures, List<String> notes) {}

  /** Connection counts of the closed-loop load from another process ({@code wrk}). */
  static final List<Integer> WRK_CONNECTIONS = List.of(8, 32, 128);

  private OrderWriteBench() {}

  public static Report run(
      DatabaseSettings db, Settings s, java.util.function.Consumer<String> progress)
      throws Exception {
    try (HikariDataSource pool = db.withSchema(SCHEMA).pool("bench", s.clients() + 4)) {
      OrderService.migrate(pool, SCHEMA);
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      dsl.createTableIfNotExists(RAW)
          .column(RAW_ID)
          .column(RAW_PAYLOAD)
          .constraint(DSL.primaryKey(RAW_ID))
          .execute();
      Map<String, String> settings = new LinkedHashMap<>();
      for (String name :
          List.of("server_version", "fsync", "synchronous_commit", "full_page_writes")) {
        settings.put(
            name, dsl.fetchValue(DSL.field("current_setting({0})", String.class, DSL.val(name))));
      }
      String payload =
          "{\"orderId\":\"" + UUID.randomUUID() + "\",\"customerId\":\"bench\",\"total\":\"9.99\"}";
      // order-service as deployed, through its runtime: the HTTP API and its write function; and
      // a second one that checks a bearer JWT on every request, for what authentication costs
      Path keys = Files.createTempDirectory("ordinal-bench-jwks");
      BenchIssuer issuer = new BenchIssuer(keys);
      try (OrderServiceApp server = startApi(db, s, ApiAuth.none());
          OrderServiceApp secured = startApi(db, s, issuer.auth())) {
        OrderService orders = server.orders();
        OrderClient client = new OrderClient(URI.create("http://localhost:" + server.port()));
        OrderClient securedClient =
            new OrderClient(
                URI.create("http://localhost:" + secured.port()),
                issuer.token("bench", Duration.ofHours(6)));
        Op rawInsert =
            () ->
                dsl.insertInto(RAW)
                    .set(RAW_ID, UUID.randomUUID())
                    .set(RAW_PAYLOAD, JSONB.valueOf(payload))
                    .execute();
        Op placeOrder = () -> orders.place(order());
        Map<String, Op> ops = new LinkedHashMap<>();
        ops.put("raw single-row insert (limit)", rawInsert);
        ops.put("write function (order + line + outbox, 1 tx)", placeOrder);
        ops.put("HTTP API (POST /orders)", () -> post(client));
        ops.put(JWT_PATH, () -> post(securedClient));
        Map<String, List<Double>> rates =
            rounds(ops, s.rounds(), "/s", progress, (name, op) -> measure(op, s));
        List<Figure> figures = new ArrayList<>();
        rates.forEach(
            (name, r) ->
                figures.add(
                    new Figure(
                        name, name.startsWith("raw") ? "rows/s" : "orders/s", median(r), r)));
        List<String> notes = new ArrayList<>();
        double writeFunction = figures.get(1).median();
        notes.add(authenticationCost(figures.get(2), figures.get(3)));
        notes.add(profile(dsl, rawInsert, placeOrder, s, progress));
        Optional<Path> wrk = WrkLoad.find();
        if (wrk.isEmpty()) {
          String why =
              "HTTP from another process not measured: `wrk` is not on the PATH (Debian:"
                  + " `apt-get install wrk`).";
          notes.add(why);
          progress.accept(why);
        } else {
          URI base = URI.create("http://localhost:" + server.port());
          String run = UUID.randomUUID().toString().substring(0, 8);
          for (int connections : WRK_CONNECTIONS) {
            List<WrkLoad.Result> results = new ArrayList<>();
            for (int round = 1; round <= s.rounds(); round++) {
              if (s.warmup().toSeconds() > 0) {
                WrkLoad.run(wrk.get(), base, connections, s.warmup(), run + "w" + round);
              }
              WrkLoad.Result r =
                  WrkLoad.run(
                      wrk.get(), base, connections, s.measure(), run + "c" + connections + round);
              results.add(r);
              progress.accept(
                  String.format(
                      "round %d/%d  wrk, %3d connections %,10.0f /s (p50 %.1f ms, p99 %.1f ms,"
                          + " %d failed)",
                      round,
                      s.rounds(),
                      connections,
                      r.ordersPerSecond(),
                      r.p50Ms(),
                      r.p99Ms(),
                      r.failed()));
            }
            List<Double> perRound = results.stream().map(WrkLoad.Result::ordersPerSecond).toList();
            double median = median(perRound);
            WrkLoad.Result mid = nearest(results, WrkLoad.Result::ordersPerSecond, median);
            long failed = results.stream().mapToLong(WrkLoad.Result::failed).sum();
            figures.add(
                new Figure(
                    String.format(
                        "HTTP API from `wrk` (another process), %d connections (p50 %.1f ms, p99"
                            + " %.1f ms%s; %.2f of the write function)",
                        connections,
                        mid.p50Ms(),
                        mid.p99Ms(),
                        failed == 0 ? "" : String.format(", %,d failed", failed),
                        median / writeFunction),
                    "orders/s",
                    median,
                    perRound));
          }
          notes.add(
              "`wrk` runs on 2 threads in a process of its own, closed loop, each request with an"
                  + " Idempotency-Key of its own; orders/s counts 2xx answers; p50/p99 of the"
                  + " round nearest the median. Goal: >= 0.6 of the write function.");
        }
        openLoop(db, URI.create("http://localhost:" + server.port()), s, writeFunction, figures);
        notes.add(
            "Open loop: POST /orders from a JVM of its own at fixed rates (fractions of the write"
                + " function's closed-loop rate, the goal being 0.6 of it), each request due at"
                + " start + i / rate whatever happened before, with an Idempotency-Key of its own;"
                + " latency from the intended send time (HdrHistogram), so a server that falls"
                + " behind shows in p99 instead of being offered less; at most "
                + HttpOpenLoopProcess.MAX_IN_FLIGHT
                + " requests open at once; "
                + openLoopWarmup(s).toSeconds()
                + " s at the lowest rate first, not counted; the rates in turn, each round.");
        notes.addAll(serverSettings(db, s, writeFunction, figures, progress));
        return new Report(settings, s, figures, notes);
      } finally {
        try (var files = Files.list(keys)) {
          for (Path f : files.toList()) {
            Files.delete(f);
          }
        }
        Files.delete(keys);
      }
    }
  }

  /** The closed-loop path whose requests carry a bearer JWT that order-service checks. */
  static final String JWT_PATH =
      "HTTP API with JWT validation (POST /orders, RS256 bearer token, --auth jwt)";

  /**
   * order-service on {@link #SCHEMA} and a free port, its callers authenticated as {@code auth}.
   */
  private static OrderServiceApp startApi(DatabaseSettings db, Settings s, ApiAuth auth) {
    return OrderServiceApp.start(
        OrderServiceSettings.builder(db)
            .schema(SCHEMA)
            .auth(auth)
            .port(0)
            .poolSize(s.clients() + 4)
            .management(ManagementSettings.off())
            .build());
  }

  private static void post(OrderClient client) throws Exception {
    int status = client.place(order(), null).statusCode();
    if (status != 201) {
      throw new IllegalStateException("HTTP " + status);
    }
  }

  /** The rate with a bearer JWT checked on every request, as a share of the rate without. */
  static String authenticationCost(Figure none, Figure jwt) {
    return String.format(
        "Authentication: with a bearer JWT checked on every request (RS256, a key from a JWKS"
            + " file; --auth jwt) the HTTP API answered %,.0f orders/s against %,.0f with --auth"
            + " none: %.2f of it (same closed-loop clients, the two interleaved in each round).",
        jwt.median(), none.median(), jwt.median() / none.median());
  }

  /**
   * What one order costs next to one raw insert, with one client: wall time, this client's CPU and
   * the WAL written per operation (means), the raw insert and the write function one after the
   * other.
   */
  private static String profile(
      DSLContext dsl,
      Op rawInsert,
      Op writeFunction,
      Settings s,
      java.util.function.Consumer<String> progress) {
    int n = s.rounds() > 1 ? 2_000 : 500;
    List<NumberingBench.Profiled> p = new ArrayList<>();
    for (Op op : List.of(rawInsert, writeFunction)) {
      p.add(
          NumberingBench.profileWithWal(
              dsl,
              n,
              () -> {
                try {
                  op.run();
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              }));
    }
    NumberingBench.Profile raw = p.get(0).profile();
    NumberingBench.Profile order = p.get(1).profile();
    String line =
        String.format(
            "One client, %,d of each (the first fifth, at most 200, not measured): raw insert %.0f"
                + " us, %.0f us client CPU, %.0f WAL bytes; write function %.0f us (%.2fx), %.0f"
                + " us client CPU (%.2fx), %.0f WAL bytes (%.2fx). WAL by relation, bytes per"
                + " order: %s; per raw insert: %s.",
            n,
            raw.micros(),
            raw.cpuMicros(),
            raw.walBytes(),
            order.micros(),
            order.micros() / raw.micros(),
            order.cpuMicros(),
            order.cpuMicros() / raw.cpuMicros(),
            order.walBytes(),
            order.walBytes() / raw.walBytes(),
            p.get(1).walByRelation(),
            p.get(0).walByRelation());
    progress.accept(line);
    return line;
  }

  /** Fractions of the write function's closed-loop rate offered open loop over HTTP. */
  static final List<Double> OPEN_LOOP_FRACTIONS = List.of(0.3, 0.6, 0.9);

  /**
   * The open-loop client's warm-up at the lowest rate, not counted (its JVM compiles meanwhile).
   */
  static Duration openLoopWarmup(Settings s) {
    return s.warmup().toSeconds() <= 1 ? Duration.ofSeconds(5) : Duration.ofSeconds(10);
  }

  /** order-service's connection pool sizes tried under the same open-loop overload. */
  static final List<Integer> POOL_SIZES = List.of(4, 8, 16, 32);

  /** The most threads of order-service's Jetty pool tried the same way (250: Javalin's default). */
  static final List<Integer> HTTP_THREADS = List.of(16, 32, 64, 250);

  /**
   * The open-loop rate of the server settings' comparisons, as a fraction of the write function.
   */
  static final double SWEEP_FRACTION = 0.9;

  /** One server setting compared under the same open-loop overload. */
  private record Sweep(
      String name,
      String unit,
      List<Integer> values,
      int current,
      BiFunction<OrderServiceSettings.Builder, Integer, OrderServiceSettings.Builder> apply) {}

  /**
   * order-service started afresh with each of {@link #POOL_SIZES} connections, then with each of
   * {@link #HTTP_THREADS} Jetty threads (its JIT already warm from the rest of the run), each
   * offered the same open-loop rate, above what the API sustains, so the answered rate shows what
   * each value lets through; the notes say which value answered most.
   */
  private static List<String> serverSettings(
      DatabaseSettings db,
      Settings s,
      double writeFunction,
      List<Figure> figures,
      java.util.function.Consumer<String> progress)
      throws Exception {
    List<String> notes = new ArrayList<>();
    for (Sweep sweep :
        List.of(
            new Sweep(
                "Pool size",
                "database connections",
                POOL_SIZES,
                OrderServiceSettings.DEFAULT_POOL_SIZE,
                OrderServiceSettings.Builder::poolSize),
            new Sweep(
                "HTTP threads",
                "Jetty threads at most",
                HTTP_THREADS,
                OrderServiceSettings.DEFAULT_HTTP_THREADS,
                OrderServiceSettings.Builder::httpThreads))) {
      notes.add(sweep(db, s, writeFunction, figures, progress, sweep));
    }
    return notes;
  }

  private static String sweep(
      DatabaseSettings db,
      Settings s,
      double writeFunction,
      List<Figure> figures,
      java.util.function.Consumer<String> progress,
      Sweep sweep)
      throws Exception {
    double rate = Math.max(1, Math.round(SWEEP_FRACTION * writeFunction));
    Duration warmup = openLoopWarmup(s).dividedBy(2);
    String run = UUID.randomUUID().toString().substring(0, 8);
    List<Integer> values = sweep.values();
    Map<Integer, List<HttpOpenLoopProcess.Result>> byValue = new LinkedHashMap<>();
    values.forEach(v -> byValue.put(v, new ArrayList<>()));
    for (int round = 0; round < s.rounds(); round++) {
      // rotated, so no value always comes first (or last, with everything warmest)
      for (int i = 0; i < values.size(); i++) {
        int value = values.get((i + round) % values.size());
        try (OrderServiceApp app =
            OrderServiceApp.start(
                sweep
                    .apply()
                    .apply(
                        OrderServiceSettings.builder(db)
                            .schema(SCHEMA)
                            .auth(ApiAuth.none())
                            .port(0)
                            .management(ManagementSettings.off()),
                        value)
                    .build())) {
          HttpOpenLoopProcess.Result r =
              HttpOpenLoopProcess.run(
                      db,
                      URI.create("http://localhost:" + app.port()),
                      List.of(rate),
                      warmup,
                      s.measure(),
                      1,
                      "sweep" + value + "-" + round + "-" + run)
                  .get(rate)
                  .get(0);
          byValue.get(value).add(r);
          progress.accept(
              String.format(
                  "round %d/%d  %s %3d: %,10.0f /s answered of %,.0f/s (p99 %.1f ms)",
                  round + 1, s.rounds(), sweep.unit(), value, r.okPerSecond(), rate, r.p99Ms()));
        }
      }
    }
    Map<Integer, Double> answered = new LinkedHashMap<>();
    byValue.forEach(
        (value, results) -> {
          List<Double> perRound = results.stream().map(r -> r.okPerSecond()).toList();
          double median = median(perRound);
          HttpOpenLoopProcess.Result mid =
              nearest(results, HttpOpenLoopProcess.Result::okPerSecond, median);
          answered.put(value, median);
          figures.add(
              new Figure(
                  String.format(
                      "HTTP API open loop at %,.0f/s offered (%.1f of the write function),"
                          + " order-service with %d %s (p50 %.1f ms, p99 %.1f"
                          + " ms from the intended send time; %.2f of the write function"
                          + " answered 2xx)",
                      rate,
                      SWEEP_FRACTION,
                      value,
                      sweep.unit(),
                      mid.p50Ms(),
                      mid.p99Ms(),
                      median / writeFunction),
                  "orders/s",
                  median,
                  perRound));
        });
    int best =
        answered.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
    return String.format(
        "%s: order-service started afresh with %s %s (the other settings at their defaults), each"
            + " offered %,.0f/s open loop (%.1f of the write function, more than the API sustains)"
            + " after a %d s warm-up, the values in a rotated order each round; most answered"
            + " (median) with %d (%,.0f/s); order-service's default is %d.",
        sweep.name(),
        values,
        sweep.unit(),
        rate,
        SWEEP_FRACTION,
        warmup.toSeconds(),
        best,
        answered.get(best),
        sweep.current());
  }

  /** The round whose rate is nearest the median: its latencies stand for the rounds'. */
  private static <R> R nearest(List<R> rounds, ToDoubleFunction<R> rate, double median) {
    return rounds.stream()
        .min(Comparator.comparingDouble(r -> Math.abs(rate.applyAsDouble(r) - median)))
        .orElseThrow();
  }

  private static void openLoop(
      DatabaseSettings db, URI base, Settings s, double writeFunction, List<Figure> figures)
      throws Exception {
    String run = UUID.randomUUID().toString().substring(0, 8);
    List<Double> rates =
        OPEN_LOOP_FRACTIONS.stream()
            .map(f -> (double) Math.max(1, Math.round(f * writeFunction)))
            .toList();
    Map<Double, List<HttpOpenLoopProcess.Result>> byRate =
        HttpOpenLoopProcess.run(
            db, base, rates, openLoopWarmup(s), s.measure(), s.rounds(), "open-" + run);
    for (int i = 0; i < rates.size(); i++) {
      double rate = rates.get(i);
      List<HttpOpenLoopProcess.Result> results = byRate.get(rate);
      List<Double> perRound = results.stream().map(r -> r.okPerSecond()).toList();
      double median = median(perRound);
      HttpOpenLoopProcess.Result mid =
          nearest(results, HttpOpenLoopProcess.Result::okPerSecond, median);
      long failed = results.stream().mapToLong(HttpOpenLoopProcess.Result::failed).sum();
      figures.add(
          new Figure(
              String.format(
                  "HTTP API open loop from another JVM at %,.0f/s offered (%.1f of the write"
                      + " function; p50 %.1f ms, p99 %.1f ms, max %.1f ms from the intended send"
                      + " time%s; %.2f of offered answered 2xx)",
                  rate,
                  OPEN_LOOP_FRACTIONS.get(i),
                  mid.p50Ms(),
                  mid.p99Ms(),
                  mid.maxMs(),
                  failed == 0 ? "" : String.format(", %,d failed", failed),
                  median / rate),
              "orders/s",
              median,
              perRound));
    }
  }

  @FunctionalInterface
  interface Op {
    void run() throws Exception;
  }

  private static NewOrder order() {
    return NewOrder.single("bench-customer", "EUR", new BigDecimal("9.99"));
  }

  /** Closed loop: each client runs the op back to back; ops finishing in the window count. */
  /** One op's rate, measured once. */
  interface Rate {
    double of(String name, Op op) throws Exception;
  }

  /**
   * Each op's rate in each of {@code rounds} rounds, every op once per round in order, with one
   * progress line per measurement ({@code unit} after the rate).
   */
  static Map<String, List<Double>> rounds(
      Map<String, Op> ops,
      int rounds,
      String unit,
      java.util.function.Consumer<String> progress,
      Rate rate)
      throws Exception {
    Map<String, List<Double>> rates = new LinkedHashMap<>();
    ops.keySet().forEach(k -> rates.put(k, new ArrayList<>()));
    for (int round = 1; round <= rounds; round++) {
      for (Map.Entry<String, Op> e : ops.entrySet()) {
        double r = rate.of(e.getKey(), e.getValue());
        rates.get(e.getKey()).add(r);
        progress.accept(
            String.format("round %d/%d  %-46s %,10.0f " + unit, round, rounds, e.getKey(), r));
      }
    }
    return rates;
  }

  static double measure(Op op, Settings s) throws Exception {
    ExecutorService clients = Executors.newFixedThreadPool(s.clients());
    LongAdder done = new LongAdder();
    long start = System.nanoTime();
    long windowStart = start + s.warmup().toNanos();
    long windowEnd = windowStart + s.measure().toNanos();
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int i = 0; i < s.clients(); i++) {
        running.add(
            clients.submit(
                () -> {
                  while (true) {
                    op.run();
                    long now = System.nanoTime();
                    if (now >= windowEnd) {
                      return null;
                    }
                    if (now >= windowStart) {
                      done.increment();
                    }
                  }
                }));
      }
      for (Future<?> f : running) {
        f.get();
      }
    } finally {
      clients.shutdownNow();
    }
    return done.sum() / (s.measure().toNanos() / 1e9);
  }

  static double median(List<Double> values) {
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }
}
