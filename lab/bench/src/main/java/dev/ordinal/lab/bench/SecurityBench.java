package dev.ordinal.lab.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.messaging.inbox.InboxConsumer;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.messaging.outbox.OutboxEvent;
import dev.ordinal.relay.OutboxRelay;
import dev.ordinal.relay.RelayConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * What securing Kafka costs the relay and billing: the same two measurements on the stack's broker
 * (PLAINTEXT) and on a second broker of the same build whose only client listener needs SASL over
 * TLS, in alternating rounds, each as a ratio to the first. (1) The CDC relay draining a backlog of
 * outbox rows written while it was stopped: events/s from its first acknowledged event to its last.
 * (2) billing's real inbox consumer applying pre-produced {@code OrderPlaced} records into a fresh
 * schema: records/s after the warm-up records. The database, the relay, the consumer and the
 * records are the same in both; only the Kafka client properties differ.
 */
public final class SecurityBench {
  static final int PARTITIONS = Topics.DEFAULT_PARTITIONS;
  static final Duration BOUND = Duration.ofMinutes(5);

  /**
   * How much to measure.
   *
   * @param relayEvents outbox rows in each relay run's backlog
   * @param rowsPerTx rows per transaction when the backlog is written
   * @param messages records each consumer run applies, warm-up included
   * @param warmupMessages the first records of each run, not timed
   * @param concurrency the consumer's concurrency
   * @param rounds rounds, each measuring both brokers (their order alternates); medians reported
   */
  public record Settings(
      int relayEvents,
      int rowsPerTx,
      int messages,
      int warmupMessages,
      int concurrency,
      int rounds) {
    /** About three minutes on two cores. */
    public static final Settings DEFAULT = new Settings(40_000, 50, 10_000, 2_000, 8, 3);

    /** About a minute: indicative figures only. */
    public static final Settings QUICK = new Settings(15_000, 50, 3_000, 600, 8, 1);
  }

  /** One measurement on both brokers: each round's rate on each, in the round's order. */
  public record Row(String what, String unit, List<Double> plain, List<Double> secured) {
    double plainMedian() {
      return OrderWriteBench.median(plain);
    }

    double securedMedian() {
      return OrderWriteBench.median(secured);
    }

    /** The median over rounds of secured / plain, each round's pair measured back to back. */
    double ratio() {
      List<Double> ratios = new ArrayList<>();
      for (int i = 0; i < plain.size(); i++) {
        ratios.add(secured.get(i) / plain.get(i));
      }
      return OrderWriteBench.median(ratios);
    }
  }

  /** What was measured, and on what. */
  public record Report(
      String plainBroker, String securedBroker, Settings settings, List<Row> rows) {}

  private final DatabaseSettings db;
  private final Settings s;
  private final Consumer<String> progress;
  private final Outbox outbox = new Outbox(Clock.systemUTC());

  private SecurityBench(DatabaseSettings db, Settings s, Consumer<String> progress) {
    this.db = db;
    this.s = s;
    this.progress = progress;
  }

  /**
   * Measures on {@code plain} and {@code secured}, described by {@code plainBroker} and {@code
   * securedBroker} in the report.
   */
  public static Report run(
      DatabaseSettings db,
      KafkaClients plain,
      String plainBroker,
      KafkaClients secured,
      String securedBroker,
      Settings s,
      Consumer<String> progress)
      throws Exception {
    SecurityBench bench = new SecurityBench(db, s, progress);
    List<Double> relayPlain = new ArrayList<>();
    List<Double> relaySecured = new ArrayList<>();
    List<Double> billingPlain = new ArrayList<>();
    List<Double> billingSecured = new ArrayList<>();
    String plainTopic = bench.produce(plain, "plain");
    String securedTopic = bench.produce(secured, "secured");
    try (DatabaseLoad load = new DatabaseLoad(db)) {
      // the first runs in a JVM are slower whatever the broker (its code not yet compiled): one
      // of each on each broker first, not measured
      for (boolean isPlain : List.of(true, false)) {
        String tag = isPlain ? "plain" : "secured";
        bench.relayDrain(isPlain ? plain : secured, tag + "_warmup");
        bench.consume(
            isPlain ? plain : secured, isPlain ? plainTopic : securedTopic, tag + "_warmup");
      }
      for (int round = 0; round < s.rounds(); round++) {
        // alternated, so neither broker always runs first
        boolean plainFirst = round % 2 == 0;
        for (boolean isPlain : plainFirst ? List.of(true, false) : List.of(false, true)) {
          String tag = isPlain ? "plain" : "secured";
          KafkaClients kafka = isPlain ? plain : secured;
          load.quiesce();
          (isPlain ? relayPlain : relaySecured).add(bench.relayDrain(kafka, tag));
          load.quiesce();
          (isPlain ? billingPlain : billingSecured)
              .add(bench.consume(kafka, isPlain ? plainTopic : securedTopic, tag));
        }
      }
    }
    return new Report(
        plainBroker,
        securedBroker,
        s,
        List.of(
            new Row(
                String.format("CDC relay draining a backlog of %,d outbox rows", s.relayEvents()),
                "events/s",
                relayPlain,
                relaySecured),
            new Row(
                String.format(
                    "billing's inbox consumer applying %,d OrderPlaced records (concurrency %d)",
                    s.messages() - s.warmupMessages(), s.concurrency()),
                "records/s",
                billingPlain,
                billingSecured)));
  }

  /**
   * Starts the relay once (it makes its slot and streams from there), stops it, writes the backlog,
   * starts it again and times it from its first acknowledged event to the last.
   */
  private double relayDrain(KafkaClients kafka, String tag) throws Exception {
    String schema = "bench_security_" + tag;
    cleanup(schema);
    try (HikariDataSource pool = db.withSchema(schema).pool(schema, 2)) {
      Migrations.applyOutbox(pool, schema);
      Topics.ensure(kafka, schema + "." + RelayBench.AGGREGATE, PARTITIONS);
      RelayConfig config =
          RelayConfig.builder(db.withSchema(schema), kafka, schema, schema)
              .slot(schema, schema, false)
              .instanceId(schema)
              .build();
      try (OutboxRelay first = new OutboxRelay(config, new SimpleMeterRegistry()).start()) {
        first.awaitStreaming(RelayBench.STREAMING_TIMEOUT);
      }
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      for (int written = 0; written < s.relayEvents(); written += s.rowsPerTx()) {
        int rows = Math.min(s.rowsPerTx(), s.relayEvents() - written);
        dsl.transaction(
            c -> {
              for (int i = 0; i < rows; i++) {
                outbox.append(
                    c.dsl(),
                    new OutboxEvent(
                        RelayBench.AGGREGATE, "bench-" + i, "OrderPlaced", RelayBench.PAYLOAD));
              }
            });
      }
      try (OutboxRelay relay = new OutboxRelay(config, new SimpleMeterRegistry()).start()) {
        double rate = BillingBench.rate(relay::relayed, 1, s.relayEvents(), BOUND);
        progress.accept(String.format("relay on the %s broker: %,.0f events/s", label(tag), rate));
        return rate;
      }
    } finally {
      cleanup(schema);
    }
  }

  /** Produces the consumer runs' records to a new topic; returns its name. */
  private String produce(KafkaClients kafka, String tag) throws Exception {
    String topic = "bench-security-" + tag + "-orders-" + System.currentTimeMillis();
    BillingBench.produce(kafka, topic, s.messages());
    progress.accept(
        String.format(
            "produced %,d OrderPlaced records to %s on the %s broker",
            s.messages(), topic, label(tag)));
    return topic;
  }

  /** Applies {@code topic} from its start into a fresh schema; records/s after the warm-up. */
  private double consume(KafkaClients kafka, String topic, String tag) throws Exception {
    String schema = "bench_security_billing_" + tag;
    try (HikariDataSource pool = BillingBench.fresh(db, schema, s.concurrency() + 4)) {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      String group = schema + "-" + System.currentTimeMillis();
      try (InboxConsumer consumer =
          BillingBench.realConsumer(
              kafka, group, topic, s.concurrency(), dsl, new SimpleMeterRegistry())) {
        double rate = BillingBench.rate(consumer::applied, s.warmupMessages(), s.messages(), BOUND);
        progress.accept(
            String.format("billing on the %s broker: %,.0f records/s", label(tag), rate));
        return rate;
      }
    } finally {
      try (HikariDataSource admin = db.pool(schema + "-drop", 1)) {
        DSL.using(admin, SQLDialect.POSTGRES).dropSchemaIfExists(schema).cascade().execute();
      }
    }
  }

  private void cleanup(String schema) {
    try (HikariDataSource admin = db.pool(schema + "-cleanup", 1)) {
      RelayStage.dropRelayed(DSL.using(admin, SQLDialect.POSTGRES), schema);
    }
  }

  private static String label(String tag) {
    return (tag.startsWith("plain") ? "PLAINTEXT" : "SASL_SSL")
        + (tag.endsWith("_warmup") ? " (warm-up, not counted)" : "");
  }

  /** The section: each row's medians on both brokers and the ratio, with what was run. */
  public static List<String> markdown(Report r, String when) {
    List<String> out = new ArrayList<>();
    out.add("## What security costs the relay and billing (" + when + ")");
    out.add("");
    out.add("| Measurement | PLAINTEXT | SASL_SSL | SASL_SSL / PLAINTEXT |");
    out.add("|---|---:|---:|---:|");
    for (Row row : r.rows()) {
      out.add(
          String.format(
              "| %s | %,.0f %s | %,.0f %s | %.2f |",
              row.what(),
              row.plainMedian(),
              row.unit(),
              row.securedMedian(),
              row.unit(),
              row.ratio()));
    }
    out.add("");
    out.add(
        String.format(
            "Brokers: %s; %s. %d round(s), the brokers' order alternating; medians, and the"
                + " ratio is the median of each round's back-to-back pair. Per round: %s.",
            r.plainBroker(), r.securedBroker(), r.settings().rounds(), perRound(r)));
    return out;
  }

  private static String perRound(Report r) {
    List<String> parts = new ArrayList<>();
    for (Row row : r.rows()) {
      List<String> pairs = new ArrayList<>();
      for (int i = 0; i < row.plain().size(); i++) {
        pairs.add(String.format("%,.0f/%,.0f", row.plain().get(i), row.secured().get(i)));
      }
      parts.add(row.unit() + " " + String.join(", ", pairs));
    }
    return String.join("; ", parts) + " (PLAINTEXT/SASL_SSL)";
  }
}
