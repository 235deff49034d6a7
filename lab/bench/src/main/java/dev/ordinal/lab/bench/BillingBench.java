package dev.ordinal.lab.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.billing.BillingService;
import dev.ordinal.billing.InvoiceHandler;
import dev.ordinal.billing.InvoiceIssuer;
import dev.ordinal.contracts.EventType;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.inbox.InboxConsumer;
import dev.ordinal.messaging.inbox.InboxConsumerConfig;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.kafka.Topics;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
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
 *
 * <p>This class holds the settings, the order of the run, the Markdown and what its parts share
 * (the records, fresh schemas, the real consumer, rates); {@link BillingIssuerBench} measures the
 * issuer, {@link BillingConsumerBench} the consumers (with {@link BillingLoop}, the copy of the
 * loop) and {@link BillingOneClient} one client's record with and without the inbox row.
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
    rows.addAll(BillingIssuerBench.rows(db, s, prefix + "_issuer", progress));
    rows.addAll(BillingConsumerBench.rows(db, bootstrap, s, prefix, progress));
    return new NumberingBench.Report(database, rows);
  }

  static String orderPlaced(UUID order) {
    return "{\"orderId\":\""
        + order
        + "\",\"customerId\":\"bench\",\"currency\":\"EUR\",\"total\":\"12.50\"}";
  }

  static void produce(String bootstrap, String topic, int n) throws Exception {
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

  static void dropSchema(DatabaseSettings db, String schema) {
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
