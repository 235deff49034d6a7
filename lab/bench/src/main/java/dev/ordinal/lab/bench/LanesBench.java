package dev.ordinal.lab.bench;

import static dev.ordinal.billing.db.Tables.INVOICE;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.billing.BillingService;
import dev.ordinal.billing.InvoiceHandler;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.inbox.InboxConsumer;
import dev.ordinal.messaging.inbox.InboxConsumerConfig;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.kafka.Topics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * Priority lanes under a bulk backlog: billing's inbox consumer (the invoice issuer off), with a
 * backlog of bulk {@code OrderPlaced} records queued, while interactive ones arrive open loop at a
 * fixed rate. Interactive latency = from each record's intended send time to the consumer applying
 * it (the draft invoice's {@code created_at}, written in the inbox transaction), with priority on
 * ({@link InboxConsumerConfig#withPriority}) and off (one consumer of both topics, no lanes); and
 * how long the backlog took to drain in each mode. Each run has a fresh schema, topics and group.
 */
public final class LanesBench {
  static final String SCHEMA = "bench_lanes";
  static final Duration START_TIMEOUT = Duration.ofSeconds(30);
  static final Duration APPLY_TIMEOUT = Duration.ofSeconds(60);
  static final String GOAL = "interactive invoiced < 2 s with 4,000 bulk queued";
  static final double GOAL_MS = 2_000;

  /**
   * How to run.
   *
   * @param bulk bulk records queued before the interactive load starts
   * @param rate interactive records per second, open loop
   * @param warmupOrders interactive records sent and applied before the backlog, excluded
   * @param rounds runs per mode (on, off, on, off, ...); their histograms are merged
   * @param concurrency the consumer's concurrency (keys applied at the same time)
   * @param maxWindow longest interactive load per run, when the backlog does not drain sooner
   */
  public record Settings(
      int bulk, int rate, int warmupOrders, int rounds, int concurrency, Duration maxWindow) {
    public static final Settings DEFAULT = new Settings(4_000, 5, 20, 2, 4, Duration.ofSeconds(60));
    public static final Settings QUICK = new Settings(4_000, 5, 10, 1, 4, Duration.ofSeconds(12));

    public Settings {
      if (bulk < 1 || bulk > 1_000_000) {
        throw new IllegalArgumentException("bulk must be 1 to 1,000,000, not " + bulk);
      }
      if (rate < 1 || rate > 1_000) {
        throw new IllegalArgumentException("rate must be 1 to 1,000 per second, not " + rate);
      }
      if (warmupOrders < 0 || warmupOrders > 10_000) {
        throw new IllegalArgumentException(
            "warm-up orders must be 0 to 10,000, not " + warmupOrders);
      }
      if (rounds < 1 || rounds > 10) {
        throw new IllegalArgumentException("rounds must be 1 to 10, not " + rounds);
      }
      if (concurrency < 1 || concurrency > InboxConsumerConfig.MAX_CONCURRENCY) {
        throw new IllegalArgumentException(
            "concurrency must be 1 to "
                + InboxConsumerConfig.MAX_CONCURRENCY
                + ", not "
                + concurrency);
      }
      if (maxWindow == null || maxWindow.toSeconds() < 1 || maxWindow.toSeconds() > 600) {
        throw new IllegalArgumentException("the window must be 1 to 600 seconds, not " + maxWindow);
      }
    }
  }

  /**
   * One mode's figures over its rounds.
   *
   * @param latency interactive, intended send → applied, of records sent while the backlog was
   *     queued
   * @param drainSeconds per round: from the first bulk send until the last bulk record was applied
   * @param drained false when a round's backlog was not gone within the window
   * @param missing interactive records not applied within the wait
   * @param bulkApplied per round: bulk records applied when the interactive load stopped
   */
  public record Mode(
      boolean priority,
      BenchReport.Latency latency,
      List<Double> drainSeconds,
      boolean drained,
      long missing,
      List<Integer> bulkApplied) {
    public double medianDrain() {
      return OrderWriteBench.median(drainSeconds);
    }
  }

  public record Report(Settings settings, Mode on, Mode off) {}

  private final DatabaseSettings db;
  private final String bootstrap;
  private final Settings s;
  private final Consumer<String> progress;
  private final String runId = Long.toString(System.currentTimeMillis() % 1_000_000_000L, 36);

  private LanesBench(DatabaseSettings db, String bootstrap, Settings s, Consumer<String> progress) {
    this.db = db;
    this.bootstrap = bootstrap;
    this.s = s;
    this.progress = progress;
  }

  public static Report run(
      DatabaseSettings db, String bootstrap, Settings s, Consumer<String> progress)
      throws Exception {
    return new LanesBench(db, bootstrap, s, progress).all();
  }

  private Report all() throws Exception {
    Histogram on = histogram();
    Histogram off = histogram();
    List<Double> drainOn = new ArrayList<>();
    List<Double> drainOff = new ArrayList<>();
    boolean drainedOn = true;
    boolean drainedOff = true;
    long missingOn = 0;
    long missingOff = 0;
    List<Integer> bulkOn = new ArrayList<>();
    List<Integer> bulkOff = new ArrayList<>();
    for (int round = 1; round <= s.rounds(); round++) {
      for (boolean priority : List.of(true, false)) {
        Run r = round(priority, round);
        (priority ? on : off).add(r.latency());
        (priority ? drainOn : drainOff).add(r.drainSeconds());
        (priority ? bulkOn : bulkOff).add(r.bulkApplied());
        if (priority) {
          drainedOn &= r.drained();
          missingOn += r.missing();
        } else {
          drainedOff &= r.drained();
          missingOff += r.missing();
        }
      }
    }
    return new Report(
        s,
        new Mode(true, BenchReport.Latency.of(on), drainOn, drainedOn, missingOn, bulkOn),
        new Mode(false, BenchReport.Latency.of(off), drainOff, drainedOff, missingOff, bulkOff));
  }

  private record Run(
      Histogram latency, double drainSeconds, boolean drained, long missing, int bulkApplied) {}

  private Run round(boolean priority, int round) throws Exception {
    String label = "priority " + (priority ? "on" : "off") + ", round " + round;
    String prefix = SCHEMA + "_" + runId + "_" + (priority ? "on" : "off") + round;
    String interactive = prefix + ".order";
    String bulk = prefix + ".order-bulk";
    try (HikariDataSource pool = db.withSchema(SCHEMA).pool("bench-lanes", s.concurrency() + 4);
        KafkaProducer<String, String> producer = producer()) {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      dsl.dropSchemaIfExists(SCHEMA).cascade().execute();
      BillingService.migrate(pool, SCHEMA);
      Topics.ensure(bootstrap, interactive, Topics.DEFAULT_PARTITIONS);
      Topics.ensure(bootstrap, bulk, Topics.DEFAULT_PARTITIONS);
      InboxConsumerConfig config =
          InboxConsumerConfig.of(
                  BillingService.CONSUMER_NAME,
                  prefix + "-billing",
                  List.of(interactive, bulk),
                  bootstrap)
              .withConcurrency(s.concurrency());
      if (priority) {
        config = config.withPriority(List.of(interactive));
      }
      try (InboxConsumer consumer =
          new InboxConsumer(
                  config,
                  dsl,
                  new InvoiceHandler(Clock.systemUTC()),
                  new SimpleMeterRegistry(),
                  Clock.systemUTC())
              .start()) {
        if (!consumer.awaitAssignment(START_TIMEOUT)) {
          throw new IllegalStateException("The billing consumer got no partitions in 30 s");
        }
        // warm-up: interactive orders with no backlog, applied before the backlog is queued
        Map<UUID, Long> warmup = new HashMap<>();
        openLoop(producer, interactive, s.warmupOrders(), new AtomicBoolean(), warmup);
        awaitCount(dsl, "interactive", s.warmupOrders(), APPLY_TIMEOUT);

        long bulkStart = System.nanoTime();
        for (int i = 0; i < s.bulk(); i++) {
          producer.send(placed(bulk, UUID.randomUUID(), "bulk"));
        }
        producer.flush();
        progress.accept(
            String.format(
                "%s: %,d bulk records queued in %d ms; interactive at %d/s until they are applied",
                label, s.bulk(), (System.nanoTime() - bulkStart) / 1_000_000, s.rate()));

        Map<UUID, Long> sent = new HashMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService sender = Executors.newSingleThreadExecutor();
        long drainedAt;
        boolean drained;
        int bulkApplied;
        try {
          Future<?> sending =
              sender.submit(
                  () -> {
                    openLoop(producer, interactive, Integer.MAX_VALUE, stop, sent);
                    return null;
                  });
          long deadline = bulkStart + s.maxWindow().toNanos();
          drained = waitForCount(dsl, "bulk", s.bulk(), deadline);
          drainedAt = System.nanoTime();
          stop.set(true);
          bulkApplied = dsl.fetchCount(INVOICE, INVOICE.CHANNEL.eq("bulk"));
          sending.get();
        } finally {
          sender.shutdownNow();
        }
        double drainSeconds = (drainedAt - bulkStart) / 1e9;
        long drainedAtMicros = wallMicros(drainedAt);
        Map<UUID, Long> measured = new HashMap<>();
        sent.forEach(
            (id, intended) -> {
              if (intended < drainedAtMicros) {
                measured.put(id, intended);
              }
            });
        awaitCount(dsl, "interactive", s.warmupOrders() + sent.size(), APPLY_TIMEOUT);
        Histogram h = histogram();
        long missing = measured.size();
        for (var row :
            dsl.select(INVOICE.ORDER_ID, INVOICE.CREATED_AT)
                .from(INVOICE)
                .where(INVOICE.CHANNEL.eq("interactive"))
                .fetch()) {
          Long intended = measured.get(row.value1());
          if (intended != null) {
            missing--;
            h.recordValue(clamp(h, micros(row.value2()) - intended));
          }
        }
        BenchReport.Latency l = BenchReport.Latency.of(h);
        progress.accept(
            String.format(
                "%s: backlog %s in %.1f s (%,d of %,d applied); interactive p50 %.1f ms, p99 %.1f ms, max %.1f ms"
                    + " over %d orders sent while it was queued%s",
                label,
                drained ? "drained" : "NOT drained",
                drainSeconds,
                bulkApplied,
                s.bulk(),
                l.p50Ms(),
                l.p99Ms(),
                l.maxMs(),
                l.count(),
                missing == 0 ? "" : " (" + missing + " not applied)"));
        return new Run(h, drainSeconds, drained, missing, bulkApplied);
      }
    } finally {
      deleteTopics(bootstrap, List.of(interactive, bulk), line -> progress.accept("  " + line));
    }
  }

  /**
   * Sends up to {@code count} interactive records, record i due at {@code start + i / rate}
   * whatever happened to the ones before it, until {@code stop}; notes each one's intended send
   * time (wall clock, microseconds) by order id.
   */
  private void openLoop(
      KafkaProducer<String, String> producer,
      String topic,
      int count,
      AtomicBoolean stop,
      Map<UUID, Long> intendedMicros)
      throws InterruptedException {
    double period = 1e9 / s.rate();
    long start = System.nanoTime();
    Map<UUID, Long> local = new HashMap<>();
    for (int i = 0; i < count && !stop.get(); i++) {
      long due = start + (long) (i * period);
      sleepUntil(due, stop);
      if (stop.get()) {
        break;
      }
      UUID order = UUID.randomUUID();
      local.put(order, wallMicros(due));
      producer.send(placed(topic, order, "interactive"));
    }
    producer.flush();
    synchronized (intendedMicros) {
      intendedMicros.putAll(local);
    }
  }

  private void awaitCount(DSLContext dsl, String channel, int expected, Duration timeout)
      throws InterruptedException {
    if (!waitForCount(dsl, channel, expected, System.nanoTime() + timeout.toNanos())) {
      progress.accept(
          "  fewer than " + expected + " " + channel + " orders applied after " + timeout);
    }
  }

  private static boolean waitForCount(DSLContext dsl, String channel, int expected, long deadline)
      throws InterruptedException {
    while (dsl.fetchCount(INVOICE, INVOICE.CHANNEL.eq(channel)) < expected) {
      if (System.nanoTime() >= deadline) {
        return false;
      }
      TimeUnit.MILLISECONDS.sleep(20);
    }
    return true;
  }

  /** Deletes {@code topics}; a failure is reported to {@code p}, not thrown. */
  static void deleteTopics(String bootstrap, List<String> topics, Consumer<String> p) {
    try (Admin admin =
        Admin.create(
            Map.<String, Object>of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      admin.deleteTopics(topics).all().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      p.accept("could not delete topics " + topics + ": " + e);
    }
  }

  private KafkaProducer<String, String> producer() {
    return new KafkaProducer<>(
        Map.<String, Object>of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.LINGER_MS_CONFIG, 0),
        new StringSerializer(),
        new StringSerializer());
  }

  static ProducerRecord<String, String> placed(String topic, UUID order, String channel) {
    String payload =
        "{\"orderId\":\""
            + order
            + "\",\"customerId\":\"bench\",\"currency\":\"EUR\",\"total\":\"12.50\",\"channel\":\""
            + channel
            + "\"}";
    ProducerRecord<String, String> r = new ProducerRecord<>(topic, order.toString(), payload);
    r.headers().add(MessageHeaders.MESSAGE_ID, MessageHeaders.encode(UUID.randomUUID().toString()));
    r.headers().add(MessageHeaders.EVENT_TYPE, MessageHeaders.encode("OrderPlaced"));
    return r;
  }

  // ---- time ----

  private static final long BASE_NANOS = System.nanoTime();
  private static final long BASE_WALL_MICROS = micros(Instant.now());

  /** The wall-clock time, in microseconds since the epoch, of a {@code System.nanoTime()} value. */
  static long wallMicros(long nanoTime) {
    return BASE_WALL_MICROS + (nanoTime - BASE_NANOS) / 1000;
  }

  static long micros(Instant t) {
    return t.getEpochSecond() * 1_000_000L + t.getNano() / 1000;
  }

  static long micros(OffsetDateTime t) {
    return micros(t.toInstant());
  }

  static Histogram histogram() {
    return new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
  }

  static long clamp(Histogram h, long micros) {
    return Math.max(0, Math.min(micros, h.getHighestTrackableValue()));
  }

  private static void sleepUntil(long nanos, AtomicBoolean stop) throws InterruptedException {
    long wait = nanos - System.nanoTime();
    while (wait > 0 && !stop.get()) {
      TimeUnit.NANOSECONDS.sleep(Math.min(wait, TimeUnit.MILLISECONDS.toNanos(50)));
      wait = nanos - System.nanoTime();
    }
  }

  // ---- the report ----

  /** The section as Markdown: what was measured, both modes, their ratio, the goal. */
  public static List<String> markdown(Report r, String when) {
    Settings s = r.settings();
    List<String> md = BenchReport.section("## Priority lanes (" + when + ")");
    md.add(
        String.format(
            "Billing's inbox consumer (`InboxConsumer` with billing's `InvoiceHandler`, concurrency %d) reads"
                + " `<prefix>.order` (interactive) and `<prefix>.order-bulk`; the invoice issuer is"
                + " off, so \"invoiced\" here means the consumer applied the `OrderPlaced` (draft"
                + " invoice written in the inbox transaction; its `created_at` is taken inside that"
                + " transaction, just before the durable commit). Per run: %d interactive orders"
                + " warm up the consumer (excluded), then %,d bulk records are produced, then"
                + " interactive records are sent open loop at %d/s until the last bulk record is"
                + " applied. Latency = intended send time → applied, HdrHistogram, of the"
                + " interactive records sent while the backlog was still queued. Priority on ="
                + " `withPriority(<prefix>.order)`; off = the same consumer of both topics with no"
                + " lanes. Fresh schema, topics and consumer group per run; %d run(s) per mode,"
                + " alternating, histograms merged. Backlog drain = first bulk send → last bulk"
                + " record applied (median of the runs).",
            s.concurrency(), s.warmupOrders(), s.bulk(), s.rate(), s.rounds()));
    md.add("");
    md.add(
        "| priority | interactive orders | p50 ms | p99 ms | max ms | p99 / goal | goal | backlog"
            + " drain s | drain per run s | bulk applied per run |");
    md.add("|---|---:|---:|---:|---:|---:|---|---:|---|---|");
    for (Mode m : List.of(r.on(), r.off())) {
      md.add(
          String.format(
              "| %s | %,d%s | %s | %s | %s | %.1f%s | %s | %s |",
              m.priority() ? "on" : "off (limit)",
              m.latency().count(),
              m.missing() == 0 ? "" : " (" + m.missing() + " not applied)",
              m.latency().cells(),
              m.latency().count() == 0
                  ? "n/a"
                  : String.format("%.2f", m.latency().p99Ms() / GOAL_MS),
              m.priority() ? "p99 < 2,000 ms" : "",
              m.medianDrain(),
              m.drained() ? "" : " (NOT drained: window ended)",
              m.drainSeconds().stream().map(d -> String.format("%.1f", d)).toList(),
              m.bulkApplied().stream().map(n -> String.format("%,d", n)).toList()));
    }
    md.add("");
    md.add(
        String.format(
            "Priority on vs off: interactive p99 %s; backlog drain %s (the cost of priority)."
                + " Goal: %s. No published anchor; the limit is the same consumer"
                + " without lanes, measured in the same run.",
            ratio(r.off().latency().p99Ms(), r.on().latency().p99Ms(), "x lower with priority"),
            drainCost(r),
            GOAL));
    return md;
  }

  /** How much longer the backlog took with priority, or that it did not drain at all. */
  static String drainCost(Report r) {
    if (!r.on().drained()) {
      return String.format(
          "NOT drained with priority within %.0f s (%s of %,d bulk applied), against %.1f s%s"
              + " without",
          r.on().medianDrain(),
          r.on().bulkApplied().stream().map(n -> String.format("%,d", n)).toList(),
          r.settings().bulk(),
          r.off().medianDrain(),
          r.off().drained() ? "" : " (not drained either)");
    }
    return ratio(r.on().medianDrain(), r.off().medianDrain(), "x as long with priority");
  }

  static String ratio(double a, double b, String what) {
    if (Double.isNaN(a) || Double.isNaN(b) || b <= 0) {
      return "n/a";
    }
    return String.format("%.2f%s", a / b, what);
  }
}
