package dev.ordinal.lab.bench;

import static dev.ordinal.billing.db.Tables.INVOICE;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.billing.BillingService;
import dev.ordinal.billing.InvoiceHandler;
import dev.ordinal.lab.bench.BillingBench.Settings;
import dev.ordinal.lab.bench.BillingConsumerBench.Mode;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.inbox.Envelope;
import dev.ordinal.messaging.inbox.InboxConsumer;
import dev.ordinal.messaging.inbox.MessageHandler;
import dev.ordinal.messaging.kafka.KafkaClients;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * Billing's consumer part: the same pre-produced {@code OrderPlaced} records applied into the
 * invoice table through the real {@link InboxConsumer} and through the bench's copy of its loop
 * ({@link BillingLoop}) with and without the inbox row, in rotated rounds, each into a fresh
 * schema; then one client's record with and without it ({@link BillingOneClient}).
 */
final class BillingConsumerBench {
  private BillingConsumerBench() {}

  /**
   * Produces the records, applies them in each mode in rotated rounds, then profiles one client;
   * the consumers' rows, then one client's.
   */
  static List<NumberingBench.Row> rows(
      DatabaseSettings db, String bootstrap, Settings s, String prefix, Consumer<String> progress)
      throws Exception {
    String topic = prefix + "-orders-" + System.currentTimeMillis();
    int total = s.warmupMessages() + s.messages();
    BillingBench.produce(bootstrap, topic, total);
    progress.accept(
        String.format(
            "produced %,d OrderPlaced records to %s (%d partitions)",
            total, topic, BillingBench.PARTITIONS));
    // the real consumer's batch phases over its measured runs
    SimpleMeterRegistry phases = new SimpleMeterRegistry();
    Map<Mode, List<Double>> byMode = rounds(db, bootstrap, topic, s, prefix, phases, progress);
    BillingOneClient oneClient = BillingOneClient.measure(db, s, prefix, progress);
    List<Double> ratios = new ArrayList<>();
    for (int round = 0; round < s.rounds(); round++) {
      ratios.add(byMode.get(Mode.REAL).get(round) / byMode.get(Mode.NO_INBOX).get(round));
    }
    String batches = phases(phases);
    progress.accept(batches);
    progress.accept(
        "with / without the inbox per round: "
            + ratios.stream().map(r -> String.format("%.2f", r)).toList());
    List<NumberingBench.Row> rows = consumerRows(s, byMode, ratios, batches);
    rows.addAll(oneClient.rows(s));
    return rows;
  }

  /**
   * Records/s of each mode in each round: one unmeasured run of the real consumer first, then
   * {@code s.rounds()} rounds of the three modes in a rotated order, each from a quiet server.
   */
  private static Map<Mode, List<Double>> rounds(
      DatabaseSettings db,
      String bootstrap,
      String topic,
      Settings s,
      String prefix,
      MeterRegistry phases,
      Consumer<String> progress)
      throws Exception {
    Map<Mode, List<Double>> byMode = new LinkedHashMap<>();
    for (Mode m : Mode.values()) {
      byMode.put(m, new ArrayList<>());
    }
    try (DatabaseLoad load = new DatabaseLoad(db)) {
      // the first consumer run after the issuer part is slower whatever its mode (seen at about
      // half the rate): one unmeasured run of the real consumer first
      BillingBench.dropSchema(db, prefix + "_warmup");
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
      BillingBench.dropSchema(db, prefix + "_warmup");
      for (int round = 0; round < s.rounds(); round++) {
        // rotated, so no mode always runs first (or right after another)
        for (int i = 0; i < Mode.values().length; i++) {
          Mode m = Mode.values()[(i + round) % Mode.values().length];
          String schema = prefix + "_" + m.name().toLowerCase(Locale.ROOT);
          // each run starts from a quiet server: no checkpoint or vacuum of the last one's
          // writes (or the dropped schema's) lands in its window
          BillingBench.dropSchema(db, schema);
          load.quiesce();
          byMode.get(m).add(consume(db, bootstrap, topic, s, schema, m, phases, progress));
        }
      }
    }
    return byMode;
  }

  /**
   * The three consumers' rows: the real one's next to the loop without the inbox row, the limit.
   */
  private static List<NumberingBench.Row> consumerRows(
      Settings s, Map<Mode, List<Double>> byMode, List<Double> ratios, String batches) {
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
    return rows;
  }

  /**
   * How a record's transaction is applied: the real consumer, the loop without or with the inbox
   * row.
   */
  enum Mode {
    REAL,
    NO_INBOX,
    LOOP_INBOX
  }

  /** One record's transaction as the consumer runs it, with the inbox row or without it. */
  static void apply(DSLContext dsl, MessageHandler handler, Envelope message, Mode mode) {
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
    try (HikariDataSource pool = BillingBench.fresh(db, schema, s.concurrency() + 4)) {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      InvoiceHandler handler = new InvoiceHandler(Clock.systemUTC());
      String group = schema + "-" + System.currentTimeMillis();
      double rate;
      if (mode == Mode.REAL) {
        try (InboxConsumer consumer =
            BillingBench.realConsumer(
                KafkaClients.of(bootstrap), group, topic, s.concurrency(), dsl, registry)) {
          // the registry may hold earlier runs' counts: this run's start from zero
          long before = consumer.applied();
          rate = measure(() -> consumer.applied() - before, s);
        }
      } else {
        try (BillingLoop loop =
            new BillingLoop(dsl, handler, bootstrap, group, topic, s.concurrency(), mode)) {
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
    return BillingBench.rate(
        applied, s.warmupMessages(), s.warmupMessages() + s.messages(), Duration.ofMinutes(10));
  }
}
