package dev.ordinal.lab.bench;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * {@code POST /orders} load from another process: {@code wrk} (Debian's package), closed loop at a
 * number of connections, each request with an {@code Idempotency-Key} of its own (so every request
 * places an order and writes its key, as a retrying client's first try does). Its Lua script prints
 * one line the bench reads: requests, non-2xx answers, socket errors, p50 and p99 in microseconds.
 */
final class WrkLoad {
  static final String MARK = "ORDINAL-WRK";

  /**
   * What one run gave.
   *
   * @param ordersPerSecond 2xx answers per second over the run
   * @param failed non-2xx answers and socket errors (connect, read, write, timeout)
   */
  record Result(
      int connections,
      double ordersPerSecond,
      long requests,
      long failed,
      double p50Ms,
      double p99Ms) {}

  static final String SCRIPT =
      """
      -- one Idempotency-Key per request: <run>-<thread>-<n>
      local threads = 0
      function setup(thread)
        threads = threads + 1
        thread:set("tid", threads)
      end
      local prefix = ""
      local n = 0
      local body = '{"customerId":"bench-wrk","currency":"EUR","lines":'
        .. '[{"sku":"SKU-1","quantity":1,"unitPrice":"9.99"}]}'
      function init(args)
        prefix = args[1] .. "-" .. tostring(tid)
      end
      function request()
        n = n + 1
        return wrk.format("POST", "/orders",
          {["Content-Type"] = "application/json", ["Idempotency-Key"] = prefix .. "-" .. n}, body)
      end
      function done(summary, latency, requests)
        local e = summary.errors
        io.write(string.format("ORDINAL-WRK %d %d %d %d %d %d\\n", summary.requests,
          summary.duration, e.status, e.connect + e.read + e.write + e.timeout,
          latency:percentile(50), latency:percentile(99)))
      end
      """;

  private WrkLoad() {}

  /** {@code wrk} on the PATH, if installed. */
  static Optional<Path> find() {
    return ChildJvm.onPath("wrk");
  }

  /**
   * Runs {@code wrk} against {@code base}'s {@code /orders} for {@code duration} with {@code
   * connections} connections on 2 threads; {@code runId} makes the keys unique across runs.
   */
  static Result run(Path wrk, URI base, int connections, Duration duration, String runId)
      throws IOException, InterruptedException {
    Path script = Files.createTempFile("ordinal-wrk", ".lua");
    try {
      Files.writeString(script, SCRIPT, StandardCharsets.UTF_8);
      List<String> cmd =
          List.of(
              wrk.toString(),
              "-t" + Math.min(2, connections),
              "-c" + connections,
              "-d" + Math.max(1, duration.toSeconds()) + "s",
              "--timeout",
              "10s",
              "-s",
              script.toString(),
              base.resolve("/orders").toString(),
              "--",
              runId);
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(duration.toSeconds() + 60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IOException("wrk failed: " + out.strip());
      }
      return parse(connections, out);
    } finally {
      Files.deleteIfExists(script);
    }
  }

  /** Reads the script's line out of wrk's output. */
  static Result parse(int connections, String out) throws IOException {
    for (String line : out.split("\n")) {
      if (line.startsWith(MARK + " ")) {
        String[] f = line.trim().split(" ");
        long requests = Long.parseLong(f[1]);
        double seconds = Long.parseLong(f[2]) / 1e6;
        long non2xx = Long.parseLong(f[3]);
        long socket = Long.parseLong(f[4]);
        return new Result(
            connections,
            (requests - non2xx) / seconds,
            requests,
            non2xx + socket,
            Long.parseLong(f[5]) / 1000.0,
            Long.parseLong(f[6]) / 1000.0);
      }
    }
    throw new IOException("wrk printed no " + MARK + " line: " + out.strip());
  }
}
