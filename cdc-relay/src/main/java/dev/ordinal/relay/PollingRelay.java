package dev.ordinal.relay;

import static dev.ordinal.messaging.db.Tables.OUTBOX;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.Preflight;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.relay.internal.PollingOutbox;
import dev.ordinal.relay.internal.PollingPublisher;
import dev.ordinal.runtime.Backoff;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
 * <p>Each cycle, on a thread of its own: (1) in one short transaction, lease up to {@code
 * batchSize} undispatched rows whose lease is free, oldest {@code occurred_at} first, to this
 * instance until {@code now + lease} ({@code FOR UPDATE SKIP LOCKED}: instances never wait on each
 * other); (2) send them to Kafka in {@code occurred_at} order with an idempotent producer ({@code
 * acks=all}) and wait for every acknowledgement, outside any transaction; (3) set {@code
 * dispatched_at} and clear the lease of the acknowledged rows this instance still holds. A full
 * batch is followed at once by the next; otherwise the relay waits {@code pollInterval}.
 *
 * <p>What callers can rely on:
 *
 * <ul>
 *   <li>No lost event: a committed row stays undispatched until Kafka has acknowledged it. Rows
 *       whose send failed, and rows leased by an instance that crashed, are claimed again (by any
 *       instance) once their lease has expired.
 *   <li>No phantom event: only committed rows are visible to the claim.
 *   <li>While a lease holds, no other instance claims its rows. Every send of a batch is over
 *       (acknowledged or failed) before its lease expires: sends start only during the first half
 *       of {@code lease - sendTimeout} after the claim (rows not sent by then stay leased and are
 *       retried), and each is over within {@link PollingRelayConfig#sendTimeout() sendTimeout}. So
 *       two instances never publish a row at the same time, provided their clocks agree to within
 *       the other half (5 s with the defaults).
 *   <li>Delivery is at least once, not exactly once: a row acknowledged by Kafka but not marked
 *       (the database failed, or the instance died, in between) is published again after its lease
 *       expires. Consumers drop such duplicates by message id (their inbox).
 *   <li>Order: within a batch rows are sent in {@code occurred_at} order. Across batches and
 *       instances there is NO order guarantee per aggregate: two instances can hold consecutive
 *       events of one aggregate and either may publish first; a row retried after a failed send
 *       comes after rows published meanwhile; and {@code occurred_at} order is not commit order for
 *       concurrent transactions. Use the CDC relay where per-aggregate order matters.
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
  /** Added to the lease when {@link #close} waits for the batch in hand. */
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
  private final CountDownLatch stop = new CountDownLatch(1);
  private volatile boolean stopping;
  private boolean started;
  private boolean closed;
  private HikariDataSource pool;
  private KafkaProducer<byte[], byte[]> producer;
  private PollingOutbox outbox;
  private PollingPublisher publisher;
  private volatile Thread loop;

  public PollingRelay(PollingRelayConfig config, MeterRegistry registry) {
    this(config, registry, Clock.systemUTC());
  }

  /**
   * @param clock leases, {@code dispatched_at} and the lag are measured with it
   */
  public PollingRelay(PollingRelayConfig config, MeterRegistry registry, Clock clock) {
    this.config = config;
    this.clock = clock;
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
   * Checks PostgreSQL (no logical replication needed), the outbox's lease columns and Kafka, then
   * starts polling on a daemon thread named {@code polling-relay-<instanceId>}.
   *
   * @throws ConfigurationException when a server is unreachable or the outbox lacks the lease
   *     columns, with one sentence naming what to fix
   * @throws IllegalStateException when already started or closed
   */
  public synchronized PollingRelay start() {
    if (started || closed) {
      throw new IllegalStateException("already started or closed");
    }
    started = true;
    Preflight.checkPostgres(config.db(), false);
    KafkaClients kafka = config.kafkaClients().forService("polling-relay", config.instanceId());
    Preflight.checkKafka(kafka, Preflight.DEFAULT_TIMEOUT);
    pool = config.db().pool("polling-relay-" + config.instanceId(), 2);
    try {
      DSLContext dsl = DSL.using(pool, SQLDialect.POSTGRES);
      checkOutbox(dsl);
      outbox =
          new PollingOutbox(dsl, clock, config.instanceId(), config.lease(), config.batchSize());
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
              new Topics.Known(kafka, Topics.DEFAULT_PARTITIONS));
    } catch (RuntimeException e) {
      closeClients();
      throw e;
    }
    loop = new Thread(this::run, "polling-relay-" + config.instanceId());
    // a daemon: close() waits only so long, and a thread stuck in a driver must not keep the JVM
    loop.setDaemon(true);
    loop.start();
    log.info("Polling relay started: {}", config);
    return this;
  }

  private void checkOutbox(DSLContext dsl) {
    try {
      dsl.select(OUTBOX.ID, OUTBOX.DISPATCHED_AT, OUTBOX.LEASE_OWNER, OUTBOX.LEASED_UNTIL)
          .from(OUTBOX)
          .limit(0)
          .fetch();
    } catch (DataAccessException e) {
      throw new ConfigurationException(
          "The outbox table at "
              + config.db().redactedUrl()
              + " is missing or lacks the lease columns the polling relay needs ("
              + e.sqlState()
              + "): apply the outbox migrations (Migrations.applyOutbox) to that schema.",
          e);
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

  private void run() {
    Backoff backoff = backoff(config.pollInterval());
    int failuresInARow = 0;
    int fullBatches = 0;
    while (!stopping) {
      Cycle cycle = cycle();
      if (cycle == Cycle.FULL && ++fullBatches % REFRESH_EVERY_FULL_BATCHES != 0) {
        continue;
      }
      if (cycle != Cycle.FAILED) {
        refreshUndispatched();
      }
      if (cycle == Cycle.FULL) {
        continue;
      }
      fullBatches = 0;
      failuresInARow = cycle == Cycle.FAILED ? failuresInARow + 1 : 0;
      Duration wait = cycle == Cycle.FAILED ? backoff.delay(failuresInARow) : config.pollInterval();
      try {
        // counted down by close(): the wait ends at once
        if (stop.await(wait.toNanos(), TimeUnit.NANOSECONDS)) {
          break;
        }
      } catch (InterruptedException e) {
        break;
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
      stopping = true;
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
      return failed(
          "publish",
          outcome.firstError(),
          outcome.failed()
              + " of "
              + rows.size()
              + " rows were not acknowledged by Kafka; they stay leased and are retried after the"
              + " lease ("
              + config.lease()
              + ")");
    }
    return rows.size() == config.batchSize() ? Cycle.FULL : Cycle.IDLE;
  }

  private Cycle failed(String stage, Throwable error, String what) {
    failures.get(stage).increment();
    log.warn("Polling relay {}: {}: {}", config.instanceId(), what, rootMessage(error));
    return Cycle.FAILED;
  }

  private static String rootMessage(Throwable error) {
    Throwable t = error;
    while (t != null && t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t == null ? "unknown error" : t.toString();
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
    Thread t = loop;
    return t != null && t.isAlive();
  }

  /**
   * Stops polling: the batch in hand is sent, acknowledged and marked first (it is over within its
   * lease; close waits at most {@code lease} plus {@link #CLOSE_GRACE}, then interrupts the loop,
   * whose unmarked rows are published again after their lease), then closes the producer and the
   * connection pool. Idempotent; never waits without a bound. An idle relay stops at once.
   */
  @Override
  public void close() {
    Thread t;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      stopping = true;
      stop.countDown();
      t = loop;
    }
    if (t != null) {
      try {
        t.join(config.lease().plus(CLOSE_GRACE).toMillis());
        if (t.isAlive()) {
          log.warn(
              "Polling relay {} did not finish its batch in time; interrupting it",
              config.instanceId());
          t.interrupt();
          t.join(CLOSE_GRACE.toMillis());
        }
      } catch (InterruptedException e) {
        t.interrupt();
        Thread.currentThread().interrupt();
      }
    }
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
