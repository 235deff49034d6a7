package dev.ordinal.lab.bench;

import static dev.ordinal.lab.bench.OrderWriteBench.SCHEMA;
import static dev.ordinal.lab.bench.OrderWriteBench.median;

import dev.ordinal.lab.bench.OrderWriteBench.Figure;
import dev.ordinal.lab.bench.OrderWriteBench.Settings;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.order.ApiAuth;
import dev.ordinal.order.OrderServiceApp;
import dev.ordinal.order.OrderServiceSettings;
import dev.ordinal.runtime.ManagementSettings;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.ToDoubleFunction;

/**
 * The orders bench's load from other processes, through order-service's HTTP API: closed loop from
 * {@code wrk} when it is installed, open loop at fixed rates from a JVM of its own, and the same
 * open loop against order-service started afresh with each pool size and each Jetty thread count.
 */
final class OrderHttpLoads {
  /** Connection counts of the closed-loop load from another process ({@code wrk}). */
  static final List<Integer> WRK_CONNECTIONS = List.of(8, 32, 128);

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
  private static final List<Sweep> SWEEPS =
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
              OrderServiceSettings.Builder::httpThreads));

  private OrderHttpLoads() {}

  /**
   * Each load in turn against the API at {@code base}, its figures added to {@code figures} (ratios
   * to {@code writeFunction}, the write function's closed-loop rate); the notes that explain them.
   */
  static List<String> measure(
      DatabaseSettings db,
      URI base,
      Settings s,
      double writeFunction,
      List<Figure> figures,
      Consumer<String> progress)
      throws Exception {
    List<String> notes = new ArrayList<>();
    notes.add(wrk(base, s, writeFunction, figures, progress));
    openLoop(db, base, s, writeFunction, figures);
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
    for (Sweep sweep : SWEEPS) {
      notes.add(sweep(db, s, writeFunction, figures, progress, sweep));
    }
    return notes;
  }

  /**
   * The API closed loop from {@code wrk} at each of {@link #WRK_CONNECTIONS}, its note; without
   * {@code wrk} on the PATH, a note saying so.
   */
  private static String wrk(
      URI base, Settings s, double writeFunction, List<Figure> figures, Consumer<String> progress)
      throws Exception {
    Optional<Path> wrk = WrkLoad.find();
    if (wrk.isEmpty()) {
      String why =
          "HTTP from another process not measured: `wrk` is not on the PATH (Debian:"
              + " `apt-get install wrk`).";
      progress.accept(why);
      return why;
    }
    String run = UUID.randomUUID().toString().substring(0, 8);
    for (int connections : WRK_CONNECTIONS) {
      figures.add(wrk(wrk.get(), base, s, connections, run, writeFunction, progress));
    }
    return "`wrk` runs on 2 threads in a process of its own, closed loop, each request with an"
        + " Idempotency-Key of its own; orders/s counts 2xx answers; p50/p99 of the"
        + " round nearest the median. Goal: >= 0.6 of the write function.";
  }

  /** {@code wrk} with {@code connections}, in each round after its warm-up; the median's figure. */
  private static Figure wrk(
      Path wrk,
      URI base,
      Settings s,
      int connections,
      String run,
      double writeFunction,
      Consumer<String> progress)
      throws Exception {
    List<WrkLoad.Result> results = new ArrayList<>();
    for (int round = 1; round <= s.rounds(); round++) {
      if (s.warmup().toSeconds() > 0) {
        WrkLoad.run(wrk, base, connections, s.warmup(), run + "w" + round);
      }
      WrkLoad.Result r =
          WrkLoad.run(wrk, base, connections, s.measure(), run + "c" + connections + round);
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
    return new Figure(
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
        perRound);
  }

  private static String sweep(
      DatabaseSettings db,
      Settings s,
      double writeFunction,
      List<Figure> figures,
      Consumer<String> progress,
      Sweep sweep)
      throws Exception {
    double rate = Math.max(1, Math.round(SWEEP_FRACTION * writeFunction));
    Duration warmup = openLoopWarmup(s).dividedBy(2);
    List<Integer> values = sweep.values();
    Map<Integer, List<HttpOpenLoopProcess.Result>> byValue =
        sweepRounds(db, s, sweep, rate, warmup, progress);
    Map<Integer, Double> answered = new LinkedHashMap<>();
    byValue.forEach(
        (value, results) -> {
          List<Double> perRound = results.stream().map(r -> r.okPerSecond()).toList();
          double median = median(perRound);
          HttpOpenLoopProcess.Result mid =
              nearest(results, HttpOpenLoopProcess.Result::okPerSecond, median);
          answered.put(value, median);
          figures.add(sweepFigure(sweep, value, rate, mid, median, writeFunction, perRound));
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

  /**
   * Each round, order-service started afresh with each of the sweep's values in a rotated order and
   * offered {@code rate} open loop after {@code warmup}; the results by value.
   */
  private static Map<Integer, List<HttpOpenLoopProcess.Result>> sweepRounds(
      DatabaseSettings db,
      Settings s,
      Sweep sweep,
      double rate,
      Duration warmup,
      Consumer<String> progress)
      throws Exception {
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
    return byValue;
  }

  /** The figure of one value: answered orders/s, p50 and p99 of the round nearest the median. */
  private static Figure sweepFigure(
      Sweep sweep,
      int value,
      double rate,
      HttpOpenLoopProcess.Result mid,
      double median,
      double writeFunction,
      List<Double> perRound) {
    return new Figure(
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
        perRound);
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
}
