package dev.ordinal.lab.bench;

import dev.ordinal.messaging.db.DatabaseSettings;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Recorder;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpMethod;

/**
 * {@code POST /orders} open loop at fixed rates from a JVM of its own: request i is due at start +
 * i / rate whatever happened before, each with an {@code Idempotency-Key} of its own (the body
 * {@code wrk}'s script sends) through Jetty's asynchronous client, and its latency runs from that
 * intended time to the answer (HdrHistogram), so a server that falls behind shows it in the latency
 * instead of being offered less. At most {@link #MAX_IN_FLIGHT} requests are open at once; a
 * request due while that many are open waits, and its wait counts in its latency. The child prints
 * {@code RATE <rate> <sent> <2xx> <failed> <p50 us> <p99 us> <max us> <nanos>} per rate and round,
 * then {@code DONE}; the bench reads them.
 */
final class HttpOpenLoopProcess {
  static final String DONE = "DONE";
  static final String RATE = "RATE";
  static final int MAX_IN_FLIGHT = 512;

  private static final String BODY =
      "{\"customerId\":\"bench-open\",\"currency\":\"EUR\",\"lines\":"
          + "[{\"sku\":\"SKU-1\",\"quantity\":1,\"unitPrice\":\"9.99\"}]}";

  private HttpOpenLoopProcess() {}

  /** What one rate gave in one round; latencies from each request's intended send time. */
  record Result(
      double offeredPerSecond,
      long sent,
      long ok,
      long failed,
      double p50Ms,
      double p99Ms,
      double maxMs,
      Duration took) {
    /** 2xx answers per second, from the first request's due time to the last answer. */
    double okPerSecond() {
      return ok / (took.toNanos() / 1e9);
    }
  }

  /**
   * The child: url user baseUri warmupSeconds seconds rounds runId rate... (the first two are the
   * bench's, unused). A warm-up at the first rate, not counted (the client's JVM is compiled by
   * then), then each round offers each rate for {@code seconds}, waiting for every answer before
   * the next; one {@code RATE} line per rate and round, then {@code DONE}.
   */
  public static void main(String[] a) throws Exception {
    URI orders = URI.create(a[2]).resolve("/orders");
    long warmupSeconds = Long.parseLong(a[3]);
    long seconds = Long.parseLong(a[4]);
    int rounds = Integer.parseInt(a[5]);
    String runId = a[6];
    List<Double> rates = new ArrayList<>();
    for (int i = 7; i < a.length; i++) {
      rates.add(Double.parseDouble(a[i]));
    }
    HttpClient client = new HttpClient();
    client.setMaxConnectionsPerDestination(MAX_IN_FLIGHT);
    client.setMaxRequestsQueuedPerDestination(MAX_IN_FLIGHT);
    client.setConnectTimeout(5_000);
    client.start();
    if (warmupSeconds > 0) {
      offer(client, orders, rates.get(0), warmupSeconds, runId + "-w", false);
    }
    for (int round = 1; round <= rounds; round++) {
      for (double rate : rates) {
        offer(client, orders, rate, seconds, runId + "-" + round + "-" + rate, true);
      }
    }
    System.out.println(DONE);
    System.out.flush();
    System.exit(0);
  }

  /** Offers {@code rate} requests/s for {@code seconds}, then waits for every answer. */
  private static void offer(
      HttpClient client, URI orders, double rate, long seconds, String keys, boolean print)
      throws InterruptedException {
    Recorder latency = new Recorder(3);
    LongAdder ok = new LongAdder();
    LongAdder failed = new LongAdder();
    Semaphore open = new Semaphore(MAX_IN_FLIGHT);
    long period = (long) (1e9 / rate);
    long total = (long) (rate * seconds);
    long start = System.nanoTime();
    for (long i = 0; i < total; i++) {
      long due = start + i * period;
      long wait = due - System.nanoTime();
      if (wait > 0) {
        TimeUnit.NANOSECONDS.sleep(wait);
      }
      open.acquire();
      long n = i;
      client
          .newRequest(orders)
          .method(HttpMethod.POST)
          .headers(h -> h.put("Idempotency-Key", keys + "-" + n))
          .body(new StringRequestContent("application/json", BODY))
          .timeout(10, TimeUnit.SECONDS)
          .send(
              result -> {
                latency.recordValue(Math.max(0, (System.nanoTime() - due) / 1_000));
                if (!result.isFailed() && result.getResponse().getStatus() / 100 == 2) {
                  ok.increment();
                } else {
                  failed.increment();
                }
                open.release();
              });
    }
    open.acquire(MAX_IN_FLIGHT);
    long took = System.nanoTime() - start;
    var h = latency.getIntervalHistogram();
    if (print) {
      System.out.printf(
          "%s %s %d %d %d %d %d %d %d%n",
          RATE,
          rate,
          total,
          ok.sum(),
          failed.sum(),
          h.getValueAtPercentile(50),
          h.getValueAtPercentile(99),
          h.getMaxValue(),
          took);
      System.out.flush();
    }
  }

  /**
   * Runs the child to its end against {@code base}: a warm-up not counted, then {@code rounds}
   * rounds of every rate; the results by rate, in round order.
   */
  static Map<Double, List<Result>> run(
      DatabaseSettings db,
      URI base,
      List<Double> rates,
      Duration warmup,
      Duration length,
      int rounds,
      String runId)
      throws IOException, InterruptedException {
    List<String> args =
        new ArrayList<>(
            List.of(
                base.toString(),
                Long.toString(warmup.toSeconds()),
                Long.toString(Math.max(1, length.toSeconds())),
                Integer.toString(rounds),
                runId));
    rates.forEach(r -> args.add(Double.toString(r)));
    Process p =
        ChildJvm.builder(
                HttpOpenLoopProcess.class, null, List.of(), db, "bench-http-open-loop", args)
            .start();
    Map<Double, List<Result>> byRate = new LinkedHashMap<>();
    return ChildJvm.readUntilDone(
        p,
        "The open-loop HTTP load process",
        f -> {
          if (f[0].equals(RATE) && f.length == 9) {
            double rate = Double.parseDouble(f[1]);
            byRate
                .computeIfAbsent(rate, r -> new ArrayList<>())
                .add(
                    new Result(
                        rate,
                        Long.parseLong(f[2]),
                        Long.parseLong(f[3]),
                        Long.parseLong(f[4]),
                        Long.parseLong(f[5]) / 1000.0,
                        Long.parseLong(f[6]) / 1000.0,
                        Long.parseLong(f[7]) / 1000.0,
                        Duration.ofNanos(Long.parseLong(f[8]))));
          }
          return f[0].equals(DONE) ? Optional.of(byRate) : Optional.empty();
        });
  }
}
