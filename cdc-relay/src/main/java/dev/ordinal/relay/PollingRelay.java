package dev.ordinal.relay;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.Preflight;
import dev.ordinal.messaging.kafka.HeaderFormat;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.relay.internal.PollingOutbox;
import dev.ordinal.relay.internal.PollingPublisher;
import dev.ordinal.runtime.Backoff;
import dev.ordinal.runtime.LoopContext;
import dev.ordinal.runtime.LoopHealth;
import dev.ordinal.runtime.LoopOwner;
import dev.ordinal.runtime.LoopState;
import dev.ordinal.runtime.Supervisor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes outbox rows by polling the table with leases: the relay for databases without logical
 * replication, and the baseline that the {@link OutboxRelay CDC relay} replaces. Any number of
 * instances may run against one outbox.
 *
 * <p>Each cycle, in a loop under a {@link Supervisor} (its own, or the service's): (1) in one short
 * transaction, lease to this instance until {@code now + lease}, for each aggregate whose oldest
 * undispatched row is free and that no other instance is claiming, a run of its oldest undispatched
 * rows, up to {@code batchSize} rows in all, oldest {@code occurred_at} first ({@link
 * PollingOutbox} says how, and why two instances cannot interleave one aggregate); (2) send them to
 * Kafka with an idempotent producer ({@code acks=all}), each aggregate's rows one after the other,
 * and wait for the acknowledgements, outside any transaction; (3) set {@code dispatched_at} and
 * clear the lease of the acknowledged rows this instance still holds, and release the rows whose
 * send is over without an acknowledgement (or never started). A full batch is followed at once by
 * the next; otherwise the relay waits {@code pollInterval}; after a failure it backs off (from
 * {@code pollInterval}, doubling to 10 s, ±50 %), and its loop shows the error.
 *
 * <p>What callers can rely on:
 *
 * <ul>
 *   <li>No lost event: a committed row stays undispatched until Kafka has acknowledged it. Rows
 *       whose send failed are released at once; rows leased by an instance that crashed, or whose
 *       acknowledgement did not come in time, are claimed again (by any instance) once their lease
 *       has expired.
 *   <li>No phantom event: only committed rows are visible to the claim.
 *   <li>While a lease holds, no other instance claims its rows. Every send of a batch is over
 *       (acknowledged or failed) before its lease expires: sends start only during the first half
 *       of {@code lease - sendTimeout} after the claim (rows not sent by then are released), and
 *       each is over within {@link PollingRelayConfig#sendTimeout() sendTimeout}. So two instances
 *       never publish a row at the same time, provided their clocks agree to within the other half
 *       (5 s with the defaults).
 *   <li>Delivery is at least once, not exactly once: a row acknowledged by Kafka but not marked
 *       (the database failed, or the instance died, in between) is published again after its lease
 *       expires. Consumers drop such duplicates by message id (their inbox).
 *   <li>Order per aggregate ({@code aggregate_type}, {@code aggregate_id}), across batches and
 *       instances: no row is published while an older row of its aggregate (by {@code occurred_at},
 *       then id) is undispatched, so the first copy of each message on Kafka comes in that order (a
 *       re-sent duplicate may come later). Rows of different aggregates keep no order. {@code
 *       occurred_at} order is not commit order: a row that commits after a younger row of its
 *       aggregate was published is published when the relay sees it, after that one.
 *   <li>An aggregate whose oldest row cannot be published holds back its younger rows (and only
 *       those) until it is; the failures show in the metrics and the loop's health.
 *   <li>Latency: an idle relay publishes a new row within about {@code pollInterval}.
 * </ul>
 *
 * <p>Metrics, tagged {@code relay} = the instance id: counters {@code ordinal.relay.polling.events}
 * (rows acknowledged by Kafka) and {@code ordinal.relay.polling.failures} (failed cycles, tagged
 * {@code stage} = {@code claim}, {@code publish} or {@code mark}), gauge {@code
 * ordinal.relay.polling.undispatched} (rows without {@code dispatched_at}, refreshed by the loop,
 * not per scrape) and timer {@code ordinal.relay.polling.lag} ({@code occurred_at} to the Kafka
 * acknowledgement).
 */
public final class PollingRelay implements AutoCloseable {
  /** How long {@link #close} waits for the producer to close. */
  public static final Duration CLOSE_GRACE = Duration.ofSeconds(5);

  private static final Logger log = LoggerFactory.getLogger(PollingRelay.class);

  // a failing database or broker is retried after about pollInterval, doubling (with jitter) up
  // to this
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(10);
  // while draining a backlog, the undispatched count is refreshed every this many full batches
  private static final int REFRESH_EVERY_FULL_BATCHES = 10;

  private static final List<String> STAGES = List.of("claim", "publish", "mark");

  private enum Cycle {
    FULL,
    IDLE,
    FAILED
  }

  private final PollingRelayConfig config;
  private final Clock clock;
  private final Counter published;
  private final Map<String, Counter> failures = new HashMap<>();
  private final Timer lag;
  private final AtomicLong undispatched = new AtomicLong();
  private final Gauge undispatchedGauge;
  private final MeterRegistry registry;
  private final LoopOwner owner = new LoopOwner();
  private HikariDataSource pool;
  private KafkaProducer<byte[], byte[]> producer;
  private PollingOutbox outbox;
  private PollingPublisher publisher;
  private Throwable lastError;

  public PollingRelay(PollingRelayConfig config, MeterRegistry registry) {
    this(config, registry, Clock.systemUTC());
  }

  /**
   * @param clock leases, {@code dispatched_at} and the lag are measured with it
   */
  public PollingRelay(PollingRelayConfig config, MeterRegistry registry, Clock clock) {
    this.config = config;
    this.clock = clock;
    this.registry = registry;
    String relay = config.instanceId();
    this.published =
        Counter.builder("ordinal.relay.polling.events")
            .description("Outbox rows published by the polling relay and acknowledged by Kafka")
            .tag("relay", relay)
            .register(registry);
    this.lag =
        Timer.builder("ordinal.relay.polling.lag")
            .description("From an outbox row's occurred_at to Kafka's acknowledgement")
            .tag("relay", relay)
            .register(registry);
    this.undispatchedGauge =
        Gauge.builder("ordinal.relay.polling.undispatched", undispatched, AtomicLong::get)
            .description("Outbox rows not yet dispatched, as last counted by the polling relay")
            .tag("relay", relay)
            .register(registry);
    for (String stage : STAGES) {
      failures.put(
          stage,
          Counter.builder("ordinal.relay.polling.failures")
              .description("Failed polling relay cycles, by the stage that failed")
              .tag("relay", relay)
              .tag("stage", stage)
              .register(registry));
    }
  }

  /**
   * As {@link #start(Supervisor, String)}, under a supervisor of its own (service {@code relay}),
   * loop {@code polling-relay-<instanceId>}.
   */
  public synchronized PollingRelay start() {
    // the loop backs off by itself; the supervisor's backoff is for a body that throws
    Supervisor own =
        new Supervisor(
            RelayApp.SERVICE,
            config.instanceId(),
            registry,
            Supervisor.DEFAULT_INITIAL_BACKOFF,
            Supervisor.DEFAULT_MAX_BACKOFF,
            clock);
    try {
      start(own, "polling-relay-" + config.instanceId());
    } catch (RuntimeException e) {
      own.close();
      throw e;
    }
    owner.own(own);
    return this;
  }

  /**
   * Checks PostgreSQL (no logical replication, no REPLICATION role needed), the outbox's lease
   * columns and Kafka, then polls in loop {@code loopName} of {@code supervisor}: a failed cycle
   * shows as the loop's last error, and the loop backs off and goes on.
   *
   * @throws ConfigurationException when a server is unreachable or the outbox lacks the lease
   *     columns, with one sentence naming what to fix
   * @throws IllegalStateException when already started or closed
   */
  public synchronized PollingRelay start(Supervisor supervisor, String loopName) {
    owner.checkStartable();
    Preflight.checkPostgres(config.db(), false);
    KafkaClients kafka =
        config
            .kafkaClients()
            .forService("polling-relay", config.instanceId())
            .withMetrics(registry);
    Preflight.checkKafka(kafka, Preflight.DEFAULT_TIMEOUT);
    pool =
        config
            .db()
            .pool("polling-relay-" + config.instanceId(), 2, Duration.ofSeconds(30), registry);
    try {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      checkOutbox(dsl);
      outbox =
          new PollingOutbox(
              config.outboxTable(),
              dsl,
              clock,
              config.instanceId(),
              config.lease(),
              config.batchSize());
      undispatched.set(outbox.undispatched());
      producer =
          kafka.producer(
              "outbox", producerProps(), new ByteArraySerializer(), new ByteArraySerializer());
      publisher =
          new PollingPublisher(
                  producer,
                  config.topicPrefix(),
                  clock,
                  lag::record,
                  new Topics.Known(kafka, config.topicPartitions(), config.topicDurability()))
              .headers(config.headerFormat(), HeaderFormat.source(config.outboxSchema()));
      owner.start(supervisor, loopName, this::run);
    } catch (RuntimeException e) {
      closeClients();
      throw e;
    }
    log.info("Polling relay started: {}", config);
    return this;
  }

  private void checkOutbox(DSLContext dsl) {
    OutboxTable t = config.outboxTable();
    try {
      dsl.select(t.id(), DSL.field(DSL.name("dispatched_at")), DSL.field(DSL.name("lease_owner")))
          .select(DSL.field(DSL.name("leased_until")))
          .from(DSL.table(DSL.name(t.table())))
          .limit(0)
          .fetch();
    } catch (DataAccessException e) {
      throw new ConfigurationException(
          "The outbox table "
              + t.table()
              + " at "
              + config.db().redactedUrl()
              + " is missing or lacks the lease columns the polling relay needs ("
              + e.sqlState()
              + "): apply the outbox migrations (Migrations.applyOutbox) to that schema, or add"
              + " dispatched_at timestamptz, lease_owner varchar(64) and leased_until timestamptz"
              + " to a table of the team's own.",
          e);
    }
    if (!t.isDefault()) {
      t.check(dsl, config.outboxSchema());
    }
  }

  private Map<String, Object> producerProps() {
    long delivery = config.deliveryTimeout().toMillis();
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    // the lease check in PollingRelayConfig relies on these two bounding every send
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) delivery);
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, config.maxBlock().toMillis());
    // Kafka refuses a request timeout longer than the delivery timeout
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(delivery, 10_000));
    p.putAll(config.kafka());
    return p;
  }

  private void run(LoopContext ctx) {
    Backoff backoff = backoff(config.pollInterval());
    int failuresInARow = 0;
    int fullBatches = 0;
    while (ctx.running()) {
      Cycle cycle = cycle();
      if (cycle == Cycle.FAILED) {
        if (Thread.currentThread().isInterrupted()) {
          break;
        }
        ctx.failed(lastError);
        ctx.await(backoff.delay(++failuresInARow));
        continue;
      }
      failuresInARow = 0;
      ctx.healthy();
      if (cycle == Cycle.FULL && ++fullBatches % REFRESH_EVERY_FULL_BATCHES != 0) {
        continue;
      }
      refreshUndispatched();
      if (cycle == Cycle.IDLE) {
        fullBatches = 0;
        ctx.await(config.pollInterval());
      }
    }
    log.info("Polling relay {} stopped; it published {} rows", config.instanceId(), published());
  }

  private Cycle cycle() {
    // Leases are stamped with the clock, these deadlines use the monotonic timer from before the
    // claim. A send started by sendBy is over (acknowledged or failed) within sendTimeout, so the
    // whole batch is over half the spare time (lease - sendTimeout) before its lease expires; the
    // other half absorbs differences between the instances' clocks.
    long claimedAt = System.nanoTime();
    long sendBy = claimedAt + config.lease().minus(config.sendTimeout()).toNanos() / 2;
    long ackBy = sendBy + config.sendTimeout().toNanos();
    List<PollingOutbox.Row> rows;
    try {
      rows = outbox.claim();
    } catch (RuntimeException e) {
      return failed("claim", e, "could not claim a batch; retrying");
    }
    if (rows.isEmpty()) {
      return Cycle.IDLE;
    }
    PollingPublisher.Outcome outcome;
    try {
      outcome = publisher.publish(rows, sendBy, ackBy);
    } catch (InterruptedException e) {
      // close() gave up waiting: the rows stay leased and are published again after the lease
      Thread.currentThread().interrupt();
      return Cycle.FAILED;
    } catch (RuntimeException e) {
      return failed(
          "publish",
          e,
          rows.size()
              + " rows could not be sent; they stay leased and are retried after the lease");
    }
    published.increment(outcome.acknowledged().size());
    try {
      int marked = outbox.markDispatched(outcome.acknowledged());
      if (marked < outcome.acknowledged().size()) {
        log.warn(
            "Polling relay {}: {} of {} published rows had lost their lease before they were"
                + " marked; another instance may publish them again",
            config.instanceId(),
            outcome.acknowledged().size() - marked,
            outcome.acknowledged().size());
      }
    } catch (RuntimeException e) {
      return failed(
          "mark",
          e,
          outcome.acknowledged().size()
              + " published rows could not be marked dispatched; they are published again after"
              + " their lease expires");
    }
    if (outcome.failed() > 0) {
      int released = 0;
      try {
        released = outbox.release(outcome.unsent());
      } catch (RuntimeException e) {
        log.debug("Polling relay {}: could not release unsent rows", config.instanceId(), e);
      }
      return failed(
          "publish",
          outcome.firstError(),
          outcome.failed()
              + " of "
              + rows.size()
              + " rows were not acknowledged by Kafka; "
              + released
              + " were released to be retried now, the rest after the lease ("
              + config.lease()
              + ")");
    }
    return rows.size() == config.batchSize() ? Cycle.FULL : Cycle.IDLE;
  }

  private Cycle failed(String stage, Throwable error, String what) {
    failures.get(stage).increment();
    // the loop's health shows the innermost error (PostgreSQL's or Kafka's words), not jOOQ's SQL
    Throwable root = error;
    while (root != null && root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    lastError = root == null ? new IllegalStateException("unknown error") : root;
    log.warn("Polling relay {}: {}: {}", config.instanceId(), what, lastError.toString());
    return Cycle.FAILED;
  }

  private void refreshUndispatched() {
    try {
      undispatched.set(outbox.undispatched());
    } catch (RuntimeException e) {
      // the gauge keeps its last value; the next cycle's claim reports the database
      log.debug("Polling relay {}: could not count undispatched rows", config.instanceId(), e);
    }
  }

  /** From {@code pollInterval} (at least 1 ms) doubling to {@link #MAX_BACKOFF}, ±50 %. */
  private static Backoff backoff(Duration pollInterval) {
    Duration initial = pollInterval.toMillis() < 1 ? Duration.ofMillis(1) : pollInterval;
    return Backoff.exponential(initial, initial.compareTo(MAX_BACKOFF) > 0 ? initial : MAX_BACKOFF);
  }

  /** This instance's lease owner name. */
  public String instanceId() {
    return config.instanceId();
  }

  /** Rows this instance published and Kafka acknowledged, since it was built. */
  public long published() {
    return (long) published.count();
  }

  /** Rows without {@code dispatched_at} (any instance's), as last counted by this instance. */
  public long undispatched() {
    return (long) undispatchedGauge.value();
  }

  /** Failed cycles (claim, publish or mark) since this instance was built. */
  public long failures() {
    return failures.values().stream().mapToLong(c -> (long) c.count()).sum();
  }

  /** True from {@link #start} until the loop has stopped. */
  public boolean isRunning() {
    Supervisor.SupervisedLoop l = owner.loop();
    return l != null && l.state() != LoopState.STOPPED;
  }

  /** The supervised loop, once started: its state and last error. */
  public LoopHealth health() {
    return owner.loop().health();
  }

  /**
   * Stops polling: the batch in hand is sent, acknowledged and marked first (its sends are over
   * within its lease; the loop is interrupted after {@link Supervisor#STOP_TIMEOUT}, and its
   * unmarked rows are published again after their lease), then closes the producer and the
   * connection pool. Idempotent; never waits without a bound. An idle relay stops at once.
   */
  @Override
  public void close() {
    owner.close();
    closeClients();
  }

  private synchronized void closeClients() {
    if (producer != null) {
      producer.close(CLOSE_GRACE);
      producer = null;
    }
    if (pool != null) {
      pool.close();
      pool = null;
    }
  }
}
