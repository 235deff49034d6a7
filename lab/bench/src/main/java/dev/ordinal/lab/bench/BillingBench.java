package dev.ordinal.lab.bench;

import static dev.ordinal.billing.db.Tables.INVOICE;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.billing.BillingService;
import dev.ordinal.billing.EInvoiceIntegrator;
import dev.ordinal.billing.HttpEInvoiceIntegrator;
import dev.ordinal.billing.IntegratorException;
import dev.ordinal.billing.InvoiceHandler;
import dev.ordinal.billing.InvoiceIssuer;
import dev.ordinal.billing.InvoiceIssuerConfig;
import dev.ordinal.contracts.EventType;
import dev.ordinal.lab.sim.IntegratorFaults;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.inbox.Envelope;
import dev.ordinal.messaging.inbox.InboxConsumer;
import dev.ordinal.messaging.inbox.InboxConsumerConfig;
import dev.ordinal.messaging.inbox.MessageHandler;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.kafka.Topics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * Billing next to its limits, in one run: invoices per second through the {@link InvoiceIssuer}
 * with a fixed-latency integrator (the HTTP simulator, no faults) at several calls in flight, next
 * to in-flight / latency; and billing's consumer applying the same pre-produced {@code OrderPlaced}
 * records into the invoice table through the real {@link InboxConsumer} (inbox row first, same
 * transaction) and through a bench-only copy of its loop without the inbox row, as a ratio.
 */
public final class BillingBench {
  static final int PARTITIONS = 8;

  /**
   * How to run.
   *
   * @param latency the integrator's fixed latency
   * @param inFlight the issuer's call slots, one measurement each
   * @param issuerWarmup excluded start of each issuer measurement
   * @param issuerMeasure measured window of each issuer measurement
   * @param messages measured {@code OrderPlaced} records per consumer run
   * @param warmupMessages records applied before the measurement starts (excluded)
   * @param concurrency the consumers' concurrency (keys applied at once)
   * @param rounds consumer rounds, each running the three consumers in a rotated order; medians
   */
  public record Settings(
      Duration latency,
      List<Integer> inFlight,
      Duration issuerWarmup,
      Duration issuerMeasure,
      int messages,
      int warmupMessages,
      int concurrency,
      int rounds) {
    public static final Settings DEFAULT =
        new Settings(
            Duration.ofMillis(200),
            List.of(1, 4, 16),
            Duration.ofSeconds(3),
            Duration.ofSeconds(10),
            10_000,
            2_000,
            8,
            3);

    /** The same integrator, in-flight levels and concurrency; shorter windows, fewer records. */
    public static final Settings QUICK =
        new Settings(
            DEFAULT.latency(),
            DEFAULT.inFlight(),
            Duration.ofSeconds(1),
            Duration.ofSeconds(3),
            3_000,
            1_000,
            DEFAULT.concurrency(),
            1);

    public Settings {
      inFlight = List.copyOf(inFlight);
    }
  }

  private BillingBench() {}

  /**
   * Runs both parts; schemas are named {@code <prefix>_...} and dropped first, the topic is {@code
   * <prefix>-orders-<millis>} (new each run).
   */
  public static NumberingBench.Report run(
      DatabaseSettings db, String bootstrap, Settings s, String prefix, Consumer<String> progress)
      throws Exception {
    List<NumberingBench.Row> rows = new ArrayList<>();
    Map<String, String> database;
    try (HikariDataSource admin = db.pool(prefix + "-admin", 2)) {
      database = NumberingBench.postgresSettings(DSL.using(admin, SQLDialect.POSTGRES));
    }
    rows.addAll(issuer(db, s, prefix + "_issuer", progress));
    rows.addAll(consumers(db, bootstrap, s, prefix, progress));
    return new NumberingBench.Report(database, rows);
  }

  // ---- invoices through the issuer ----

  private static List<NumberingBench.Row> issuer(
      DatabaseSettings db, Settings s, String schema, Consumer<String> progress) throws Exception {
    List<NumberingBench.Row> rows = new ArrayList<>();
    int maxInFlight = s.inFlight().stream().mapToInt(Integer::intValue).max().orElse(1);
    try (HikariDataSource pool = fresh(db, schema, 3 * maxInFlight + 4);
        IntegratorSimulator sim =
            new IntegratorSimulator(
                    0,
                    IntegratorFaults.defaults()
                        .withoutFaults()
                        .withLatency(s.latency(), s.latency()))
                .start()) {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      HttpEInvoiceIntegrator http =
          new HttpEInvoiceIntegrator(sim.baseUri(), Duration.ofSeconds(10));
      for (int inFlight : s.inFlight()) {
        double ideal = inFlight * 1000.0 / s.latency().toMillis();
        // a backlog for the whole run at 1.25x the ideal rate: the issuer never runs dry
        int count =
            (int)
                    Math.ceil(
                        ideal
                            * (s.issuerWarmup().toMillis() + s.issuerMeasure().toMillis())
                            / 1000.0
                            * 1.25)
                + 4 * inFlight;
        NumberingBench.drafts(dsl, "SEND-" + inFlight, count, 4);
        Recorder calls = new Recorder(3);
        InvoiceIssuer issuer =
            new InvoiceIssuer(
                InvoiceIssuerConfig.defaults().withWorkers(inFlight),
                dsl,
                timed(http, calls),
                new SimpleMeterRegistry(),
                Clock.systemUTC());
        long before;
        long after;
        Histogram latency;
        try {
          issuer.start();
          TimeUnit.MILLISECONDS.sleep(s.issuerWarmup().toMillis());
          before = issuer.issued();
          calls.getIntervalHistogram(); // the warm-up's calls are not reported
          TimeUnit.MILLISECONDS.sleep(s.issuerMeasure().toMillis());
          after = issuer.issued();
          latency = calls.getIntervalHistogram();
        } finally {
          issuer.close();
        }
        // what the backlog had left: out of the next measurement's queue, accounted for
        dsl.update(INVOICE)
            .set(INVOICE.STATUS, "CANCELLED")
            .where(INVOICE.STATUS.eq("DRAFT"))
            .execute();
        double rate = (after - before) / (s.issuerMeasure().toMillis() / 1000.0);
        progress.accept(
            String.format(
                "%d in flight: %,.1f invoices/s, ideal %,.1f (%.2f); integrator call p50 %.0f ms,"
                    + " p99 %.0f ms",
                inFlight,
                rate,
                ideal,
                rate / ideal,
                latency.getValueAtPercentile(50) / 1e6,
                latency.getValueAtPercentile(99) / 1e6));
        rows.add(
            new NumberingBench.Row(
                String.format(
                    "invoices through a %d ms integrator, %d in flight (call p50 %.0f ms, p99 %.0f"
                        + " ms; limit = in-flight / latency)",
                    s.latency().toMillis(),
                    inFlight,
                    latency.getValueAtPercentile(50) / 1e6,
                    latency.getValueAtPercentile(99) / 1e6),
                rate,
                "invoices/s",
                ideal,
                ">= 0.9"));
      }
    }
    return rows;
  }

  /** The integrator, with each submission's latency recorded (nanoseconds). */
  private static EInvoiceIntegrator timed(EInvoiceIntegrator inner, Recorder calls) {
    return new EInvoiceIntegrator() {
      @Override
      public void submit(Submission submission) throws IntegratorException {
        long t0 = System.nanoTime();
        try {
          inner.submit(submission);
        } finally {
          calls.recordValue(System.nanoTime() - t0);
        }
      }

      @Override
      public Optional<RemoteInvoice> lookup(String series, long number) throws IntegratorException {
        return inner.lookup(series, number);
      }
    };
  }

  // ---- the consumer with and without the inbox ----

  private static List<NumberingBench.Row> consumers(
      DatabaseSettings db, String bootstrap, Settings s, String prefix, Consumer<String> progress)
      throws Exception {
    String topic = prefix + "-orders-" + System.currentTimeMillis();
    int total = s.warmupMessages() + s.messages();
    produce(bootstrap, topic, total);
    progress.accept(
        String.format(
            "produced %,d OrderPlaced records to %s (%d partitions)", total, topic, PARTITIONS));
    Map<Mode, List<Double>> byMode = new LinkedHashMap<>();
    // the real consumer's batch phases over its measured runs
    SimpleMeterRegistry phases = new SimpleMeterRegistry();
    for (Mode m : Mode.values()) {
      byMode.put(m, new ArrayList<>());
    }
    try (DatabaseLoad load = new DatabaseLoad(db)) {
      // the first consumer run after the issuer part is slower whatever its mode (seen at about
      // half the rate): one unmeasured run of the real consumer first
      dropSchema(db, prefix + "_warmup");
      load.quiesce();
      consume(
          db,
          bootstrap,
          topic,
          s,
          prefix + "_warmup",
          Mode.REAL,
          new SimpleMeterRegistry(),
          p -> {});
      dropSchema(db, prefix + "_warmup");
      for (int round = 0; round < s.rounds(); round++) {
        // rotated, so no mode always runs first (or right after another)
        for (int i = 0; i < Mode.values().length; i++) {
          Mode m = Mode.values()[(i + round) % Mode.values().length];
          String schema = prefix + "_" + m.name().toLowerCase(Locale.ROOT);
          // each run starts from a quiet server: no checkpoint or vacuum of the last one's
          // writes (or the dropped schema's) lands in its window
          dropSchema(db, schema);
          load.quiesce();
          byMode.get(m).add(consume(db, bootstrap, topic, s, schema, m, phases, progress));
        }
      }
    }
    OneClient oneClient = oneClient(db, s, prefix, progress);
    List<Double> ratios = new ArrayList<>();
    for (int round = 0; round < s.rounds(); round++) {
      ratios.add(byMode.get(Mode.REAL).get(round) / byMode.get(Mode.NO_INBOX).get(round));
    }
    String batches = phases(phases);
    progress.accept(batches);
    progress.accept(
        "with / without the inbox per round: "
            + ratios.stream().map(r -> String.format("%.2f", r)).toList());
    String real =
        "real InboxConsumer + InvoiceHandler (one tx: the inbox row and the order's lock in one"
            + " statement, the invoice and the charge in one)";
    String loopInbox = "the bench's copy of its loop, with the same inbox row and lock statement";
    String loopPlain = "the bench's copy of its loop, without the inbox row (the lock alone)";
    Map<String, Double> rates = new LinkedHashMap<>();
    rates.put(real, OrderWriteBench.median(byMode.get(Mode.REAL)));
    rates.put(loopInbox, OrderWriteBench.median(byMode.get(Mode.LOOP_INBOX)));
    rates.put(loopPlain, OrderWriteBench.median(byMode.get(Mode.NO_INBOX)));
    double without = rates.get(loopPlain);
    List<NumberingBench.Row> rows = new ArrayList<>();
    String where =
        String.format(
            ", %,d records, concurrency %d (limit = without the inbox)",
            s.messages(), s.concurrency());
    rows.add(
        new NumberingBench.Row(
            "consumer: "
                + real
                + where
                + NumberingBench.rounds(byMode.get(Mode.REAL))
                + (ratios.size() < 2
                    ? ""
                    : " (ratio per round "
                        + ratios.stream().map(r -> String.format("%.2f", r)).toList()
                        + ")")
                + " ("
                + batches
                + ")",
            rates.get(real),
            "records/s",
            without,
            ">= 0.9"));
    rows.add(
        new NumberingBench.Row(
            "consumer: " + loopInbox + where + NumberingBench.rounds(byMode.get(Mode.LOOP_INBOX)),
            rates.get(loopInbox),
            "records/s",
            without,
            "-"));
    rows.add(
        new NumberingBench.Row(
            "consumer: " + loopPlain + where + NumberingBench.rounds(byMode.get(Mode.NO_INBOX)),
            without,
            "records/s",
            without,
            "-"));
    NumberingBench.Profile with = oneClient.with();
    NumberingBench.Profile plain = oneClient.without();
    rows.add(
        new NumberingBench.Row(
            String.format(
                "consumer, one client, time per record with the inbox row (limit = without it),"
                    + " %,d records one after the other in each of 4 runs (with, without, without,"
                    + " with; means)",
                oneClientRecords(s)),
            with.micros(),
            "us",
            plain.micros(),
            "-"));
    rows.add(
        new NumberingBench.Row(
            "consumer, one client, client CPU per record with the inbox row (limit = without it)",
            with.cpuMicros(),
            "us",
            plain.cpuMicros(),
            "-"));
    rows.add(
        new NumberingBench.Row(
            "consumer, one client, WAL per record with the inbox row (limit = without it; with"
                + " it, bytes per record by relation: "
                + oneClient.walWithInbox()
                + ")",
            with.walBytes(),
            "bytes",
            plain.walBytes(),
            "-"));
    return rows;
  }

  enum Mode {
    REAL,
    NO_INBOX,
    LOOP_INBOX
  }

  /**
   * What the inbox row adds to one record's transaction, with one client and no Kafka in the way:
   * the same kind of records applied one after the other, each in its transaction, with the inbox
   * row and without it, each run into a fresh schema, in the order with, without, without, with (so
   * neither has the warmer JVM or the emptier tables every time); wall time, client CPU and WAL
   * bytes per record, the two runs of each averaged; and where the WAL of the last run with the
   * inbox row went, by relation ({@link WalByRelation}).
   */
  /** The one-client profile: with the inbox row, without it, and the former's WAL by relation. */
  private record OneClient(
      NumberingBench.Profile with, NumberingBench.Profile without, String walWithInbox) {}

  private static OneClient oneClient(
      DatabaseSettings db, Settings s, String prefix, Consumer<String> progress) {
    int n = oneClientRecords(s);
    InvoiceHandler handler = new InvoiceHandler(Clock.systemUTC());
    Map<Mode, List<NumberingBench.Profile>> byMode = new LinkedHashMap<>();
    String walWithInbox = "";
    for (Mode mode : List.of(Mode.LOOP_INBOX, Mode.NO_INBOX, Mode.NO_INBOX, Mode.LOOP_INBOX)) {
      String schema = prefix + "_one_" + mode.name().toLowerCase(Locale.ROOT);
      try (HikariDataSource pool = fresh(db, schema, 2)) {
        DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
        List<Envelope> messages = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
          UUID order = UUID.randomUUID();
          messages.add(
              new Envelope(
                  UUID.randomUUID().toString(),
                  EventType.ORDER_PLACED.wireName(),
                  null,
                  order.toString(),
                  orderPlaced(order),
                  prefix + "-one-client",
                  0,
                  k));
        }
        Iterator<Envelope> next = messages.iterator();
        NumberingBench.Profiled p =
            NumberingBench.profileWithWal(dsl, n, () -> apply(dsl, handler, next.next(), mode));
        byMode.computeIfAbsent(mode, m -> new ArrayList<>()).add(p.profile());
        if (mode == Mode.LOOP_INBOX) {
          // the last run's
          walWithInbox = p.walByRelation();
        }
      } finally {
        dropSchema(db, schema);
      }
    }
    NumberingBench.Profile with = mean(byMode.get(Mode.LOOP_INBOX));
    NumberingBench.Profile without = mean(byMode.get(Mode.NO_INBOX));
    progress.accept(
        String.format(
            "one client, %,d records each: with the inbox row %.0f us, %.0f us client CPU, %.0f WAL"
                + " bytes per record; without it %.0f us, %.0f us client CPU, %.0f WAL bytes",
            n,
            with.micros(),
            with.cpuMicros(),
            with.walBytes(),
            without.micros(),
            without.cpuMicros(),
            without.walBytes()));
    progress.accept("one client, WAL per record with the inbox row, by relation: " + walWithInbox);
    return new OneClient(with, without, walWithInbox);
  }

  private static NumberingBench.Profile mean(List<NumberingBench.Profile> ps) {
    return new NumberingBench.Profile(
        ps.stream().mapToDouble(NumberingBench.Profile::micros).average().orElseThrow(),
        ps.stream().mapToDouble(NumberingBench.Profile::cpuMicros).average().orElseThrow(),
        ps.stream().mapToDouble(NumberingBench.Profile::walBytes).average().orElseThrow());
  }

  private static int oneClientRecords(Settings s) {
    return s.rounds() > 1 ? 3_000 : 1_000;
  }

  /** One record's transaction as the consumer runs it, with the inbox row or without it. */
  private static void apply(DSLContext dsl, MessageHandler handler, Envelope message, Mode mode) {
    if (mode == Mode.NO_INBOX) {
      // the handler's lock alone, as the inbox takes it with the row
      dsl.transaction(
          c -> {
            c.dsl().select(handler.lockFor(message)).fetch();
            handler.handle(c.dsl(), message);
          });
    } else {
      InboxConsumer.applyOnce(
          dsl, BillingService.CONSUMER_NAME, handler, message, Clock.systemUTC());
    }
  }

  private static String orderPlaced(UUID order) {
    return "{\"orderId\":\""
        + order
        + "\",\"customerId\":\"bench\",\"currency\":\"EUR\",\"total\":\"12.50\"}";
  }

  private static void produce(String bootstrap, String topic, int n) throws Exception {
    produce(KafkaClients.of(bootstrap), topic, n);
  }

  /**
   * {@code n} OrderPlaced records, each with its message id, to {@code topic} (made if missing).
   */
  static void produce(KafkaClients kafka, String topic, int n) throws Exception {
    Topics.ensure(kafka, topic, PARTITIONS);
    try (KafkaProducer<String, String> producer =
        kafka.producer(
            "bench-billing-orders",
            Map.of(ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, 5),
            new StringSerializer(),
            new StringSerializer())) {
      List<Future<?>> sent = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        UUID order = UUID.randomUUID();
        ProducerRecord<String, String> r =
            new ProducerRecord<>(topic, order.toString(), orderPlaced(order));
        r.headers()
            .add(MessageHeaders.MESSAGE_ID, MessageHeaders.encode(UUID.randomUUID().toString()));
        r.headers()
            .add(
                MessageHeaders.EVENT_TYPE,
                MessageHeaders.encode(EventType.ORDER_PLACED.wireName()));
        sent.add(producer.send(r));
      }
      for (Future<?> f : sent) {
        f.get();
      }
    }
  }

  /**
   * Applies the topic from its start into a fresh schema; returns records/s over the records after
   * the warm-up ones, and checks that every record made exactly one invoice.
   */
  private static double consume(
      DatabaseSettings db,
      String bootstrap,
      String topic,
      Settings s,
      String schema,
      Mode mode,
      MeterRegistry registry,
      Consumer<String> progress)
      throws Exception {
    int total = s.warmupMessages() + s.messages();
    try (HikariDataSource pool = fresh(db, schema, s.concurrency() + 4)) {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      InvoiceHandler handler = new InvoiceHandler(Clock.systemUTC());
      String group = schema + "-" + System.currentTimeMillis();
      double rate;
      if (mode == Mode.REAL) {
        try (InboxConsumer consumer =
            realConsumer(
                KafkaClients.of(bootstrap), group, topic, s.concurrency(), dsl, registry)) {
          // the registry may hold earlier runs' counts: this run's start from zero
          long before = consumer.applied();
          rate = measure(() -> consumer.applied() - before, s);
        }
      } else {
        try (Loop loop = new Loop(dsl, handler, bootstrap, group, topic, s.concurrency(), mode)) {
          rate = measure(loop.applied::get, s);
        }
      }
      int invoices = dsl.fetchCount(INVOICE);
      if (invoices != total) {
        throw new IllegalStateException(
            mode + " made " + invoices + " invoices from " + total + " records");
      }
      progress.accept(
          String.format("%s: %,.0f records/s", mode.name().toLowerCase(Locale.ROOT), rate));
      return rate;
    }
  }

  /**
   * Billing's real inbox consumer of {@code topic} in {@code group}, started, applying records with
   * the invoice handler into {@code dsl}'s schema (no dead letters: the bench's records are
   * well-formed).
   */
  static InboxConsumer realConsumer(
      KafkaClients kafka,
      String group,
      String topic,
      int concurrency,
      DSLContext dsl,
      MeterRegistry registry) {
    return new InboxConsumer(
            InboxConsumerConfig.builder(BillingService.CONSUMER_NAME, group, List.of(topic), kafka)
                .concurrency(concurrency)
                .deadLetter(false)
                .build(),
            dsl,
            new InvoiceHandler(Clock.systemUTC()),
            registry,
            Clock.systemUTC())
        .start();
  }

  /**
   * Where the real consumer's batches spent their time ({@code ordinal.inbox.batch} by phase): the
   * records' transactions, and the loop's own work between batches while the workers wait.
   */
  static String phases(MeterRegistry registry) {
    Map<String, Timer> byPhase = new LinkedHashMap<>();
    for (String phase : List.of("apply", "positions", "commit")) {
      Timer t = registry.find("ordinal.inbox.batch").tag("phase", phase).timer();
      if (t == null) {
        return "real consumer: no batch timings";
      }
      byPhase.put(phase, t);
    }
    double total =
        byPhase.values().stream().mapToDouble(t -> t.totalTime(TimeUnit.MILLISECONDS)).sum();
    Timer apply = byPhase.get("apply");
    return String.format(
        "real consumer's batches (its measured runs, warm-up records included): %,d batches of"
            + " %,.0f records on average; of their %,.1f s, applying the records %.1f%%, storing the"
            + " positions %.1f%%, committing the offsets %.1f%%",
        apply.count(),
        apply.count() == 0
            ? 0.0
            : registry.get("ordinal.inbox.messages").tag("outcome", "applied").counter().count()
                / apply.count(),
        total / 1000,
        100 * apply.totalTime(TimeUnit.MILLISECONDS) / total,
        100 * byPhase.get("positions").totalTime(TimeUnit.MILLISECONDS) / total,
        100 * byPhase.get("commit").totalTime(TimeUnit.MILLISECONDS) / total);
  }

  /** Waits out the warm-up records, then times the rest; records/s. */
  private static double measure(LongSupplier applied, Settings s) throws InterruptedException {
    return rate(
        applied, s.warmupMessages(), s.warmupMessages() + s.messages(), Duration.ofMinutes(10));
  }

  /**
   * Per second, from {@code count} reaching {@code from} to its reaching {@code to}; throws when it
   * has not within {@code bound}.
   */
  static double rate(LongSupplier count, long from, long to, Duration bound)
      throws InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    waitFor(count, from, deadline);
    long fromCount = count.getAsLong();
    long t0 = System.nanoTime();
    waitFor(count, to, deadline);
    long t1 = System.nanoTime();
    return (count.getAsLong() - fromCount) / ((t1 - t0) / 1e9);
  }

  private static void waitFor(LongSupplier count, long atLeast, long deadline)
      throws InterruptedException {
    while (count.getAsLong() < atLeast) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("stuck at " + count.getAsLong() + " of " + atLeast);
      }
      TimeUnit.MILLISECONDS.sleep(2);
    }
  }

  private static void dropSchema(DatabaseSettings db, String schema) {
    try (HikariDataSource admin = db.pool(schema + "-drop", 1)) {
      DSL.using(admin, SQLDialect.POSTGRES).dropSchemaIfExists(schema).cascade().execute();
    }
  }

  static HikariDataSource fresh(DatabaseSettings db, String schema, int size) {
    HikariDataSource pool = db.withSchema(schema).pool(schema, size);
    try {
      DSL.using(pool, SQLDialect.POSTGRES).dropSchemaIfExists(schema).cascade().execute();
      BillingService.migrate(pool, schema);
      return pool;
    } catch (RuntimeException e) {
      pool.close();
      throw e;
    }
  }

  /**
   * A bench-only copy of {@link InboxConsumer}'s loop for the comparison: the same consumer
   * settings, one poll's records grouped by partition and key and applied {@code concurrency}
   * groups at a time, one transaction per record running the same handler, offsets committed after
   * the batch. With {@link Mode#LOOP_INBOX} each record's transaction is the real one's ({@link
   * InboxConsumer#applyOnce}: the inbox row with the order's lock, then the handler); without it
   * the lock is taken alone. No dead letters or retries: the bench's records are all well-formed,
   * and a failure ends it.
   */
  private static final class Loop implements AutoCloseable {
    final AtomicLong applied = new AtomicLong();
    private final DSLContext dsl;
    private final MessageHandler handler;
    private final Mode mode;
    private final KafkaConsumer<String, String> consumer;
    private final ExecutorService workers;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile RuntimeException failed;

    Loop(
        DSLContext dsl,
        MessageHandler handler,
        String bootstrap,
        String group,
        String topic,
        int concurrency,
        Mode mode) {
      this.dsl = dsl;
      this.handler = handler;
      this.mode = mode;
      Map<String, Object> props = new HashMap<>();
      props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
      props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
      props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
      props.put(ConsumerConfig.CLIENT_ID_CONFIG, "bench-" + group);
      consumer = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
      consumer.subscribe(List.of(topic));
      workers = Executors.newFixedThreadPool(concurrency);
      thread = new Thread(this::loop, "bench-billing-loop");
      thread.start();
    }

    private void loop() {
      try {
        while (running) {
          ConsumerRecords<String, String> polled =
              consumer.poll(InboxConsumerConfig.DEFAULT_POLL_TIMEOUT);
          if (polled.isEmpty()) {
            continue;
          }
          Map<List<Object>, List<ConsumerRecord<String, String>>> groups = new LinkedHashMap<>();
          Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
          for (TopicPartition tp : polled.partitions()) {
            List<ConsumerRecord<String, String>> rs = polled.records(tp);
            for (ConsumerRecord<String, String> r : rs) {
              groups
                  .computeIfAbsent(List.of(tp, Objects.toString(r.key())), k -> new ArrayList<>())
                  .add(r);
            }
            commit.put(tp, new OffsetAndMetadata(rs.get(rs.size() - 1).offset() + 1));
          }
          List<Future<?>> batch = new ArrayList<>(groups.size());
          for (List<ConsumerRecord<String, String>> group : groups.values()) {
            batch.add(
                workers.submit(
                    () -> {
                      for (ConsumerRecord<String, String> r : group) {
                        apply(r);
                      }
                    }));
          }
          for (Future<?> f : batch) {
            f.get();
          }
          consumer.commitSync(commit);
        }
      } catch (Exception e) {
        if (running) {
          failed = new IllegalStateException("the bench's consumer loop failed", e);
        }
      } finally {
        consumer.close(Duration.ofSeconds(5));
      }
    }

    private void apply(ConsumerRecord<String, String> record) {
      BillingBench.apply(dsl, handler, Envelope.of(record), mode);
      applied.incrementAndGet();
    }

    @Override
    public void close() throws InterruptedException {
      running = false;
      consumer.wakeup();
      thread.join(TimeUnit.SECONDS.toMillis(30));
      workers.shutdownNow();
      if (failed != null) {
        throw failed;
      }
    }
  }

  /** The figures as Markdown, with machine and settings. */
  public static List<String> markdown(
      NumberingBench.Report r, Settings s, String stack, String when) {
    Map<String, String> facts = NumberingBench.facts(r.database(), stack);
    facts.put(
        "Load",
        String.format(
            "issuer: integrator = the HTTP simulator, fixed %d ms, no faults; %d s warm-up excluded,"
                + " %d s measured per in-flight level; consumer: %,d OrderPlaced records (after"
                + " %,d warm-up ones) on a topic of %d partitions, produced before, applied into a"
                + " fresh schema per run, concurrency %d; %d round(s) of the three, rotated;"
                + " medians",
            s.latency().toMillis(),
            s.issuerWarmup().toSeconds(),
            s.issuerMeasure().toSeconds(),
            s.messages(),
            s.warmupMessages(),
            PARTITIONS,
            s.concurrency(),
            s.rounds()));
    return NumberingBench.table("Billing (" + when + ")", r.rows(), facts);
  }
}
