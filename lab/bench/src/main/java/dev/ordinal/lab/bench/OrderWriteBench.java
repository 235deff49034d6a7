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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;
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
 * the medians are reported. The load from other processes (wrk, open loop, the server settings
 * compared) is in {@link OrderHttpLoads}.
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

  private OrderWriteBench() {}

  public static Report run(
      DatabaseSettings db, Settings s, java.util.function.Consumer<String> progress)
      throws Exception {
    try (HikariDataSource pool = db.withSchema(SCHEMA).pool("bench", s.clients() + 4)) {
      OrderService.migrate(pool, SCHEMA);
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      Map<String, String> settings = prepare(dsl);
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
        List<Figure> figures = closedLoop(ops, s, progress);
        List<String> notes = new ArrayList<>();
        double writeFunction = figures.get(1).median();
        notes.add(authenticationCost(figures.get(2), figures.get(3)));
        notes.add(profile(dsl, rawInsert, placeOrder, s, progress));
        URI base = URI.create("http://localhost:" + server.port());
        notes.addAll(OrderHttpLoads.measure(db, base, s, writeFunction, figures, progress));
        return new Report(settings, s, figures, notes);
      } finally {
        deleteAll(keys);
      }
    }
  }

  /** The raw insert's table, made if missing; the server's version and durability settings. */
  private static Map<String, String> prepare(DSLContext dsl) {
    dsl.createTableIfNotExists(RAW)
        .column(RAW_ID)
        .column(RAW_PAYLOAD)
        .constraint(DSL.primaryKey(RAW_ID))
        .execute();
    return NumberingBench.postgresSettings(dsl);
  }

  /** Each op's closed-loop rate in each round, interleaved; a figure of each op's median. */
  private static List<Figure> closedLoop(
      Map<String, Op> ops, Settings s, java.util.function.Consumer<String> progress)
      throws Exception {
    Map<String, List<Double>> rates =
        rounds(ops, s.rounds(), "/s", progress, (name, op) -> measure(op, s));
    List<Figure> figures = new ArrayList<>();
    rates.forEach(
        (name, r) ->
            figures.add(
                new Figure(name, name.startsWith("raw") ? "rows/s" : "orders/s", median(r), r)));
    return figures;
  }

  /** Directory {@code dir} and the files in it. */
  private static void deleteAll(Path dir) throws java.io.IOException {
    try (var files = Files.list(dir)) {
      for (Path f : files.toList()) {
        Files.delete(f);
      }
    }
    Files.delete(dir);
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

  @FunctionalInterface
  interface Op {
    void run() throws Exception;
  }

  private static NewOrder order() {
    return NewOrder.single("bench-customer", "EUR", new BigDecimal("9.99"));
  }

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

  /** Closed loop: each client runs the op back to back; ops finishing in the window count. */
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
