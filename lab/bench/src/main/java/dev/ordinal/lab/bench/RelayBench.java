package dev.ordinal.lab.bench;

import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.relay.PollingRelayConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.jooq.impl.DSL;

/**
 * The relays measured against the raw outbox insert rate of the same PostgreSQL and broker, in one
 * run: (1) outbox insert rate, single-row and multi-row commits; (2) the CDC relay's sustained
 * events/s while writers commit multi-row transactions flat out; (3) commit → consumer receive
 * latency at a fixed open-loop rate for the CDC relay and the polling relay at two intervals; (4)
 * the transactions per second and the database CPU each relay costs while nothing is written, above
 * a baseline with no relay. Each measurement has its own schema, topic prefix, slot and
 * publication, dropped afterwards, so none sees another's rows or pays for their vacuum.
 *
 * <p>This class holds the settings, the figures and the order of the run; {@link RelayStage}
 * prepares each measurement and starts its relay, {@link RelayWriteRates} measures (1) and (2) and
 * the capacity, {@link RelayLatency} (3) and (4), and {@link RelayReport} writes the Markdown.
 */
public final class RelayBench {
  static final String AGGREGATE = "order";
  static final int PARTITIONS = Topics.DEFAULT_PARTITIONS;
  static final String PAYLOAD =
      "{\"orderId\":\"" + UUID.randomUUID() + "\",\"customerId\":\"bench\",\"total\":\"9.99\"}";
  // open-loop writers: enough that one slow durable commit does not hold the next event back
  static final int LATENCY_WRITERS = 4;
  // before an idle window, after vacuum and checkpoint: the relay's offsets flush, its polls go
  // empty, and its sessions flush their statistics (at most once a second)
  static final Duration SETTLE = Duration.ofSeconds(2);

  // a session that goes idle keeps statistics it could not flush (at most one flush a second) for
  // up to 10 s: an idle window starts this long after the relay started, or its start-up queries
  // would be counted as idle cost
  static final Duration STATS_FLUSH_DELAY = Duration.ofSeconds(11);
  static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(60);
  static final Duration STREAMING_TIMEOUT = Duration.ofSeconds(60);

  /**
   * How to run.
   *
   * @param clients closed-loop writers for the insert rates and the CDC throughput
   * @param rowsPerTx rows per multi-row transaction
   * @param rounds insert-rate rounds (single and multi interleaved); medians are reported
   * @param rate events per second of the latency runs (one event per transaction, open loop)
   * @param highRate the CDC relay's second latency rate, at each of its poll intervals
   * @param fastPollInterval the polling relay's fastest sensible interval
   * @param relayWarmup how long the CDC relay's own JVM runs at {@code highRate} before its latency
   *     is measured (not measured itself): a fresh JVM interprets and compiles for its first
   *     seconds, and its backlog meanwhile shows as seconds of latency
   * @param cdcPollIntervals the CDC relay's {@code poll.interval.ms} values: latency at both rates
   *     and idle cost at each
   * @param idle the window of each idle measurement, and of the baseline
   * @param capacityStep how long each open-loop rate of the capacity runs lasts (and the insert
   *     rate measured alone before them)
   */
  public record Settings(
      int clients,
      int rowsPerTx,
      int rounds,
      Duration insertWarmup,
      Duration insertMeasure,
      Duration throughputWarmup,
      Duration throughputWindow,
      int rate,
      int highRate,
      Duration latencyWarmup,
      Duration latencyMeasure,
      Duration relayWarmup,
      Duration defaultPollInterval,
      Duration fastPollInterval,
      List<Duration> cdcPollIntervals,
      Duration idle,
      Duration capacityStep) {

    /** The CDC relay's {@code poll.interval.ms} values compared (its default among them). */
    public static final List<Duration> CDC_POLL_INTERVALS =
        List.of(Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofMillis(10));

    /** About three minutes on two cores, stack start included. */
    public static final Settings DEFAULT =
        new Settings(
            8,
            50,
            3,
            Duration.ofSeconds(2),
            Duration.ofSeconds(3),
            Duration.ofSeconds(10),
            Duration.ofSeconds(15),
            200,
            1000,
            Duration.ofSeconds(3),
            Duration.ofSeconds(15),
            Duration.ofSeconds(20),
            PollingRelayConfig.DEFAULT_POLL_INTERVAL,
            Duration.ofMillis(50),
            CDC_POLL_INTERVALS,
            Duration.ofSeconds(10),
            Duration.ofSeconds(30));

    /** About a minute and a quarter: indicative figures only. */
    public static final Settings QUICK =
        new Settings(
            8,
            50,
            1,
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            Duration.ofSeconds(3),
            Duration.ofSeconds(4),
            200,
            1000,
            Duration.ofSeconds(1),
            Duration.ofSeconds(4),
            Duration.ofSeconds(10),
            PollingRelayConfig.DEFAULT_POLL_INTERVAL,
            Duration.ofMillis(50),
            CDC_POLL_INTERVALS,
            Duration.ofSeconds(4),
            Duration.ofSeconds(5));
  }

  /** Rows per second of outbox inserts through {@link Outbox#append}. */
  public record InsertRate(String name, int rowsPerTx, double median, List<Double> rounds) {}

  /**
   * The CDC relay under writers running flat out.
   *
   * @param relayRate Kafka acknowledgements per second over the window (steady state after warm-up)
   * @param writerRate rows committed per second over the same window, with the relay running
   * @param drainRate acknowledgements per second from the end of the window until the backlog was
   *     gone (or the drain timeout), the writers stopped
   */
  public record Throughput(
      double relayRate,
      double writerRate,
      long backlogAtStart,
      long backlogAtEnd,
      double drainRate,
      Duration drainTime,
      boolean drained) {}

  /**
   * Commit → consumer receive of one relay, and what it costs while idle.
   *
   * @param missing events of the measured window not received within the wait
   * @param early events received before their writer's commit call returned (recorded as 0)
   * @param idle transactions and CPU per second while idle, baseline not subtracted
   * @param relayCpuPercent the relay process's own CPU while idle, in percent of one core (null
   *     when the relay runs in the bench's JVM)
   */
  public record RelayRun(
      String relay,
      int rate,
      boolean reference,
      long events,
      long missing,
      long early,
      double p50Ms,
      double p99Ms,
      double maxMs,
      DatabaseLoad.Rate idle,
      Double relayCpuPercent,
      Split split) {
    RelayRun withIdle(DatabaseLoad.Rate rate, Double relayCpu) {
      return new RelayRun(
          relay, this.rate, reference, events, missing, early, p50Ms, p99Ms, maxMs, rate, relayCpu,
          split);
    }
  }

  /**
   * Where a run's latency went, split at the relay's send: the record's timestamp, which both
   * relays leave to the moment they hand the record to their producer (whole epoch milliseconds,
   * taken as their middle, so each part is within half a millisecond). Before it: PostgreSQL's
   * logical decoding, the walsender, Debezium's streaming loop and queue (or the polling relay's
   * poll), the router and the converters; after it: the producer, the broker's append and
   * replication, the consumer's fetch.
   *
   * @param slowest the events at or above the run's p99
   * @param slowestBeforeMs their mean time from the commit call returning to the relay's send
   * @param slowestAfterMs their mean time from the relay's send to the consumer receiving them
   */
  public record Split(
      double beforeP50Ms,
      double beforeP99Ms,
      double afterP50Ms,
      double afterP99Ms,
      long slowest,
      double slowestBeforeMs,
      double slowestAfterMs) {}

  /** Everything measured; {@code database} holds the server's version and durability settings. */
  public record Report(
      Map<String, String> database,
      Settings settings,
      List<InsertRate> inserts,
      Throughput throughput,
      DatabaseLoad.Rate baseline,
      List<RelayRun> runs,
      List<Capacity> capacity,
      List<String> capacityNotes) {}

  /**
   * One open-loop rate of a capacity run.
   *
   * @param offered rows per second the writers were asked for
   * @param committed rows per second they committed
   * @param backlogStart rows committed and not yet in Kafka when the rate started
   * @param backlogEnd the same when it ended
   * @param flat whether the backlog grew by at most one second of the offered rate
   */
  public record CapacityStep(
      double offered, double committed, long backlogStart, long backlogEnd, boolean flat) {}

  /**
   * The relay's capacity in one layout of the cores.
   *
   * @param layout how the processes were placed on the cores
   * @param insertAlone rows per second the writers committed flat out with no relay running
   */
  public record Capacity(String layout, double insertAlone, List<CapacityStep> steps) {

    /**
     * The highest committed rate of a flat step (0 when none). Not the last flat step's: a higher
     * offer can commit less than a lower one did (the writers, not the relay, falling short).
     */
    public double highestFlat() {
      return steps.stream()
          .filter(CapacityStep::flat)
          .mapToDouble(CapacityStep::committed)
          .max()
          .orElse(0);
    }
  }

  /** The open-loop rates of a capacity run, as fractions of the insert rate measured alone. */
  static final List<Double> CAPACITY_FRACTIONS = List.of(0.2, 0.4, 0.6, 0.8, 1.0);

  private RelayBench() {}

  /**
   * Runs every measurement in turn on {@code db} (a role that may create schemas, publications and
   * replication slots) and the broker at {@code bootstrap}.
   */
  public static Report run(
      DatabaseSettings db, String bootstrap, Settings s, Consumer<String> progress)
      throws Exception {
    try (BenchTarget on = BenchTarget.open(db, bootstrap, progress, "bench-relay-admin");
        DatabaseLoad load = new DatabaseLoad(db)) {
      return all(new RelayStage(on, s, load));
    }
  }

  private static Report all(RelayStage stage) throws Exception {
    Map<String, String> database = databaseSettings(stage.on(), stage.load());
    RelayWriteRates writes = new RelayWriteRates(stage);
    RelayLatency latency = new RelayLatency(stage);
    List<InsertRate> inserts = writes.insertRates();
    Throughput throughput = writes.throughput();
    DatabaseLoad.Rate baseline = latency.baseline();
    List<RelayRun> runs = latency.runs();
    // last: it pins processes to cores, and nothing measured after it should inherit that
    List<String> capacityNotes = new ArrayList<>();
    List<Capacity> capacity = writes.capacities(capacityNotes);
    return new Report(
        database, stage.settings(), inserts, throughput, baseline, runs, capacity, capacityNotes);
  }

  /** The server's version and durability settings, told as progress too. */
  private static Map<String, String> databaseSettings(BenchTarget on, DatabaseLoad load) {
    Map<String, String> database = new LinkedHashMap<>();
    for (String name :
        List.of(
            "server_version",
            "fsync",
            "synchronous_commit",
            "full_page_writes",
            "wal_writer_delay")) {
      database.put(
          name,
          on.admin().fetchValue(DSL.field("current_setting({0})", String.class, DSL.val(name))));
    }
    on.progress(
        "PostgreSQL "
            + database
            + (load.seesCpu() ? "; its CPU is read from /proc" : "; its CPU is not visible here"));
    return database;
  }
}
