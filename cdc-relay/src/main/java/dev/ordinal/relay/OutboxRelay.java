package dev.ordinal.relay;

import dev.ordinal.messaging.Preflight;
import dev.ordinal.messaging.kafka.HeaderFormat;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.relay.internal.EngineMeters;
import dev.ordinal.relay.internal.EngineRun;
import dev.ordinal.relay.internal.KafkaForwarder;
import dev.ordinal.relay.internal.LeaderLock;
import dev.ordinal.relay.internal.PublishSpan;
import dev.ordinal.relay.internal.RelayStart;
import dev.ordinal.relay.internal.SlotMonitor;
import dev.ordinal.relay.internal.SlotOwnership;
import dev.ordinal.relay.internal.SlotPosition;
import dev.ordinal.relay.internal.StandbyGuard;
import dev.ordinal.runtime.Loop;
import dev.ordinal.runtime.LoopContext;
import dev.ordinal.runtime.Supervisor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jooq.exception.DataAccessException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tails the outbox table's WAL with an embedded Debezium engine (PostgreSQL connector, pgoutput,
 * outbox EventRouter) and publishes each committed outbox row to {@code
 * <topicPrefix>.<aggregate_type>}, key = aggregate id, headers = message id, event type, aggregate
 * type, occurred-at and trace context.
 *
 * <p>High availability: any number of relays may run for one slot; the one holding a PostgreSQL
 * advisory lock (on a session of its own) streams, the others stand by and try again every {@link
 * RelayConfig#leaderRetryInterval()}. When the leader dies its session ends, the lock is free and a
 * standby takes over from the position stored in PostgreSQL. A leader that loses its lock's session
 * stops streaming at once. The lead is a lease ({@link RelayConfig#leaderLease()}): PostgreSQL ends
 * the lock's session of a leader that stopped checking it (frozen, paused, cut off), the standby
 * ends the replication connection it left on the slot, and the old leader, when it wakes, sends
 * nothing more because its lease has run out by its own monotonic clock; the position it may still
 * try to store is refused when another relay has stored a later one.
 *
 * <p>Delivery: at least once, nothing lost. The producer is idempotent with {@code acks=all}; an
 * event counts as processed only when Kafka acknowledged it; the position is stored every {@link
 * RelayConfig#offsetFlushInterval()}, so a crash re-sends at most the events relayed in the last
 * interval plus one batch ({@link RelayConfig#maxBatchSize()}); consumers drop them through their
 * inbox. Rolled-back transactions never reach the WAL stream, so they publish nothing. Each lead
 * has a producer of its own, abandoned at the first failed send, so a key's events reach the topic
 * in order the first time each is written (re-sends come after, as copies).
 *
 * <p>A row Kafka refuses for good (a poison row: larger than the producer may send, a topic it may
 * not use) stops the engine before it with {@link PoisonRowException}; nothing after it is
 * published, the loop keeps trying after its backoff and stops on it again until the limit is
 * raised or the relay is restarted with the row in {@link RelayConfig#skipEvents()}. Counted in
 * {@code ordinal.relay.unpublishable}; rows skipped in {@code ordinal.relay.skipped}.
 *
 * <p>Metrics, tagged with the slot and {@code relay_instance}: {@code ordinal.relay.events}
 * (acknowledged by Kafka), {@code ordinal.relay.lag} (commit → Kafka acknowledgement, a histogram),
 * the slot's {@link dev.ordinal.messaging.slot.SlotMeters} ({@code ordinal.slot.wal.bytes} from
 * {@code restart_lsn} and {@code confirmed_flush_lsn}, {@code wal_status}, {@code safe_wal_size}),
 * {@code ordinal.relay.slot.lag.alert} (1 when the WAL kept from {@code restart_lsn} is above
 * {@link RelayConfig#slotLagAlertBytes()}), {@code ordinal.relay.leader} (1 while this instance
 * streams); the producer's {@code kafka_producer_*}.
 */
public final class OutboxRelay implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);
  static final Duration SLOT_CHECK_INTERVAL = Duration.ofSeconds(5);
  static final Duration STREAMING_TIMEOUT = Duration.ofSeconds(60);

  private final RelayConfig config;
  private final Clock clock;
  private final Counter relayed;
  private final Timer lag;
  private final Counter unpublishable;
  private final Counter skipped;
  private final AtomicLong unguardedStandbys = new AtomicLong(-1);
  private final AtomicBoolean riskAccepted = new AtomicBoolean();

  /** Read this instance's state: removed on close, so a relay made again in its place reports. */
  private final java.util.List<Gauge> gauges = new java.util.ArrayList<>();

  private volatile String standbyRefusal;

  /** The furthest WAL position whose events this process had acknowledged by Kafka. */
  private final AtomicLong acknowledgedLsn = new AtomicLong();

  private final AtomicBoolean leader = new AtomicBoolean();
  private final AtomicBoolean running = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final CountDownLatch stopSignal = new CountDownLatch(1);
  private final MeterRegistry registry;
  private final SlotMonitor slotMonitor;
  private final LeaderLock lock;
  private final Topics.Known topics;
  private final KafkaClients kafka;
  private volatile EngineRun engine;
  private volatile String lastFailure;
  private volatile KafkaProducer<byte[], byte[]> producer;
  private Supervisor ownSupervisor;
  private Supervisor.SupervisedLoop relayLoop;
  private Supervisor.SupervisedLoop slotLoop;

  public OutboxRelay(RelayConfig config, MeterRegistry registry) {
    this(config, registry, Clock.systemUTC());
  }

  public OutboxRelay(RelayConfig config, MeterRegistry registry, Clock clock) {
    this.config = config;
    this.clock = clock;
    this.registry = registry;
    String slot = config.slotName();
    Tags tags = Tags.of("slot", slot, "relay_instance", config.instanceId());
    this.relayed =
        counter(registry, tags, "ordinal.relay.events", "Outbox events acknowledged by Kafka");
    this.lag =
        Timer.builder("ordinal.relay.lag")
            .description("Outbox commit to Kafka acknowledgement")
            .tags(tags)
            .publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofMillis(1))
            .maximumExpectedValue(Duration.ofMinutes(5))
            .register(registry);
    this.unpublishable =
        counter(
            registry,
            tags,
            "ordinal.relay.unpublishable",
            "Times the relay stopped before an outbox row Kafka refuses for good (poison row)");
    this.skipped =
        counter(
            registry,
            tags,
            "ordinal.relay.skipped",
            "Outbox rows passed over without publishing, as told by --skip-event");
    gauges.add(
        Gauge.builder("ordinal.relay.slot.lag.alert", this, r -> r.slotLagAlert() ? 1 : 0)
            .description("1 when the server keeps more WAL for the slot than the alert threshold")
            .tags(tags)
            .register(registry));
    gauges.add(
        Gauge.builder("ordinal.relay.standbys.unguarded", unguardedStandbys, AtomicLong::get)
            .description(
                "Physical standbys a failover could lose published events to; the relay refuses to"
                    + " publish while above 0 unless --allow-unguarded-standbys (-1 until first read)")
            .tags(tags)
            .register(registry));
    gauges.add(
        Gauge.builder("ordinal.relay.leader", leader, b -> b.get() ? 1 : 0)
            .description("1 while this instance streams from the slot")
            .tags(tags)
            .register(registry));
    gauges.addAll(EngineMeters.register(registry, slot, tags));
    this.slotMonitor =
        new SlotMonitor(
            config.db(),
            slot,
            config.slotLagAlertBytes(),
            registry,
            Tags.of("relay_instance", config.instanceId()));
    this.lock = new LeaderLock(config.db(), slot, config.leaderLease());
    this.kafka =
        config.kafkaClients().forService("relay", config.instanceId()).withMetrics(registry);
    this.topics = new Topics.Known(kafka, config.topicPartitions(), config.topicDurability());
  }

  private static Counter counter(
      MeterRegistry registry, Tags tags, String name, String description) {
    return Counter.builder(name).description(description).tags(tags).register(registry);
  }

  /** The name of the loop that competes for the slot and streams: {@code relay-<schema>}. */
  public String loopName() {
    return "relay-" + config.outboxSchema();
  }

  /** The name of the loop that reads the slot's lag: {@code slot-monitor-<schema>}. */
  public String slotLoopName() {
    return "slot-monitor-" + config.outboxSchema();
  }

  /**
   * {@link #start(Supervisor)} under a supervisor of its own (service {@code relay}).
   *
   * @throws dev.ordinal.messaging.ConfigurationException as {@link #start(Supervisor)}
   */
  public synchronized OutboxRelay start() {
    ownSupervisor = new Supervisor("relay", registry);
    try {
      return start(ownSupervisor);
    } catch (RuntimeException e) {
      ownSupervisor.close();
      throw e;
    }
  }

  /**
   * Checks the database and the broker, then competes for the slot as loop {@link #loopName()} of
   * {@code supervisor}: it streams when it wins, stands by otherwise; when the engine stops on an
   * error or the leader lock's session is lost, the loop steps down, and the supervisor runs it
   * again after a backoff. The slot's lag is read by loop {@link #slotLoopName()}. The publication
   * and the slot exist when this returns (made if missing), so every event committed from then on
   * is captured, whether this relay or another streams it.
   *
   * @throws dev.ordinal.messaging.ConfigurationException when a server is unfit (e.g. {@code
   *     wal_level} not logical, the outbox unreadable, the slot or publication serving another
   *     schema's outbox), with one sentence naming the setting to fix
   * @throws dev.ordinal.runtime.ServerUnavailableException when a server does not answer
   * @throws PositionLostException when the slot is missing, invalidated or ahead of the position
   *     the relay stored: events may have been skipped, and the relay will not stream past them
   */
  public synchronized OutboxRelay start(Supervisor supervisor) {
    if (!running.compareAndSet(false, true)) {
      throw new IllegalStateException("already started");
    }
    Preflight.checkPostgres(config.db(), true);
    Preflight.checkKafka(kafka, Preflight.DEFAULT_TIMEOUT);
    RelayStart.checkOutboxReadable(config);
    SlotOwnership.check(config);
    SlotPosition.check(config);
    RelayStart.makeCapturePoint(config);
    // topics are created as events arrive; those that exist already are checked now
    Topics.checkExisting(kafka, config.topicPrefix() + ".", config.topicDurability());
    if (config.offsetStore() == RelayConfig.OffsetStore.FILE) {
      try {
        Files.createDirectories(config.offsetFile().toAbsolutePath().getParent());
      } catch (IOException e) {
        throw new RelayException(
            "Cannot create the directory of the relay's offset file " + config.offsetFile(), e);
      }
    }
    relayLoop = supervisor.start(loopName(), this::compete);
    slotLoop = supervisor.start(slotLoopName(), Loop.every(SLOT_CHECK_INTERVAL, this::checkSlot));
    log.info("CDC relay {} started: {}", config.instanceId(), config);
    return this;
  }

  /**
   * One life of the election loop: stand by until the lock is free, then lead until the engine
   * stops, the lock's session is lost or the relay is closed. Standing by is this loop's work too
   * (it is RUNNING); a leader is RUNNING once its engine streams.
   */
  private void compete(LoopContext ctx) throws java.sql.SQLException {
    try {
      while (ctx.running() && !lock.tryAcquire()) {
        ctx.healthy();
        ctx.await(config.leaderRetryInterval());
      }
      if (!ctx.running()) {
        return;
      }
      // the slot may have been taken over by another schema's relay, dropped or invalidated while
      // this one stood by: never stream past events that may have been skipped
      SlotOwnership.check(config);
      SlotPosition.check(config, acknowledgedLsn.get());
      refuseUnguardedStandbys(slotMonitor.standbys());
      endStaleStream();
      // the stream never carries them; each page acknowledged is progress, not a stall
      new RelayRecovery(config).publishBeforeFirstStream(ctx::healthy);
      lead();
      while (ctx.running()) {
        EngineRun e = engine;
        if (!lock.isAlive()) {
          throw new RelayException(
              "Relay "
                  + config.instanceId()
                  + " lost its leader lock's session; it stops streaming");
        }
        refuseUnguardedStandbys(null); // as the slot monitor found them last
        if (e.hasStopped()) {
          lastFailure = e.failure();
          if (e.poison() != null) {
            throw e.poison(); // its sentence names the row and the ways on
          }
          throw new RelayException("The Debezium engine stopped: " + lastFailure);
        }
        if (e.isStreaming()) {
          ctx.healthy();
        }
        ctx.await(config.leaderRetryInterval());
      }
    } finally {
      stepDown(ctx.running() ? "failed" : "stopping");
    }
  }

  /**
   * A replication connection still on the slot belongs to a leader that lost the lock without
   * noticing (frozen, cut off): its lease has run out, so it sends nothing more; end it so this
   * relay can stream now rather than after the server's {@code wal_sender_timeout}.
   */
  private void endStaleStream() {
    try {
      int pid = lock.endStaleStream(config.slotName());
      if (pid != 0) {
        log.warn(
            "Relay {} ended the replication connection (pid {}) still streaming from slot {}: a"
                + " leader that lost its lease (frozen or cut off) held it",
            config.instanceId(),
            pid,
            config.slotName());
      }
    } catch (DataAccessException e) {
      log.warn(
          "Relay {} could not end the connection still streaming from slot {} ({}); the slot is"
              + " free once the server's wal_sender_timeout ends it",
          config.instanceId(),
          config.slotName(),
          EngineRun.rootMessage(e));
    }
  }

  private void lead() {
    log.info(
        "Relay {} is the leader for slot {}; streaming", config.instanceId(), config.slotName());
    // a producer per lead: one whose send failed was abandoned (KafkaForwarder), and no batch
    // queued after the failed one may be written by it
    producer =
        kafka.producer(
            "outbox-" + config.outboxSchema(),
            RelayStart.producerProps(config),
            new ByteArraySerializer(),
            new ByteArraySerializer());
    engine =
        new EngineRun(
            config,
            new KafkaForwarder(
                producer,
                kafka,
                config.topicPrefix(),
                config.outbox(),
                config.skipEvents(),
                new KafkaForwarder.Meters(relayed, lag, unpublishable, skipped),
                clock,
                topics,
                config.instanceId(),
                config.headerFormat(),
                HeaderFormat.source(config.outboxSchema()),
                lock::leaseHolds,
                acknowledgedLsn,
                PublishSpan.ofProcess()));
    leader.set(true);
  }

  private void stepDown(String why) {
    EngineRun e = engine;
    if (e != null) {
      log.info("Relay {} steps down: {}", config.instanceId(), why);
      e.close();
      engine = null;
    }
    KafkaProducer<byte[], byte[]> p = producer;
    if (p != null) {
      // stopping: deliver what is in hand; failed: abandon it, as its forwarder may have already
      p.close("stopping".equals(why) ? Duration.ofSeconds(10) : Duration.ZERO);
      producer = null;
    }
    leader.set(false);
    lock.release();
  }

  /**
   * Throws the {@link StandbyGuard} sentence when a failover could lose what this relay publishes,
   * as {@code now} shows (null: as the slot monitor read last); the loop then steps down, shows it
   * and tries again after its backoff.
   */
  private void refuseUnguardedStandbys(StandbyGuard.Reading now) {
    if (now != null) {
      standbys(now);
    }
    String refusal = standbyRefusal;
    if (refusal != null) {
      throw new RelayException(refusal);
    }
  }

  private void standbys(StandbyGuard.Reading r) {
    unguardedStandbys.set(r.exposed());
    standbyRefusal = StandbyGuard.refusal(r, config).orElse(null);
    if (r.exposed() > 0 && standbyRefusal == null && !riskAccepted.getAndSet(true)) {
      log.warn(
          "Relay {} publishes although a failover could lose what it published: {} physical"
              + " standby(s) logical decoding does not wait for, accepted by"
              + " --allow-unguarded-standbys",
          config.instanceId(),
          r.exposed());
    }
  }

  private void checkSlot() throws java.sql.SQLException {
    standbys(slotMonitor.check());
  }

  /**
   * Waits until this instance is the leader and streams: events committed from then on are
   * captured.
   *
   * @throws RelayException when it did not happen in time (another instance leads, or the engine
   *     could not start; the message says which)
   */
  public void awaitStreaming(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      EngineRun e = engine;
      if (e != null && e.awaitStreaming(Duration.ofMillis(100))) {
        return;
      }
      if (e == null) {
        stopSignal.await(50, TimeUnit.MILLISECONDS);
      }
    }
    String why = lastFailure != null ? ": " + lastFailure : " (another relay may be the leader)";
    throw new RelayException("The CDC relay did not start streaming within " + timeout + why);
  }

  /** Events acknowledged by Kafka since start. */
  public long relayed() {
    return (long) relayed.count();
  }

  /** True while this instance holds the slot and streams. */
  public boolean isLeader() {
    return leader.get();
  }

  /**
   * Bytes of WAL the server keeps for the slot (from its {@code restart_lsn}) at the last check
   * (every 5 s); -1 before the first.
   */
  public long slotLagBytes() {
    return slotMonitor.restartLagBytes();
  }

  public boolean slotLagAlert() {
    return slotLagBytes() > config.slotLagAlertBytes();
  }

  /** Commit → Kafka acknowledgement latency of the events relayed so far. */
  public Timer lag() {
    return lag;
  }

  /** Why the engine last stopped on its own, or null. */
  public String lastFailure() {
    return lastFailure;
  }

  /** True until {@link #close()}. */
  public boolean isRunning() {
    return running.get();
  }

  /**
   * Stops: the batch in flight is acknowledged, the position stored, the lock released. Bounded
   * (about 30 s at worst); a second call returns at once.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    running.set(false);
    stopSignal.countDown();
    if (relayLoop != null) {
      relayLoop.close();
    }
    if (slotLoop != null) {
      slotLoop.close();
    }
    if (ownSupervisor != null) {
      ownSupervisor.close();
    }
    lock.close();
    gauges.forEach(registry::remove);
    slotMonitor.close();
    log.info("CDC relay {} stopped", config.instanceId());
  }
}
