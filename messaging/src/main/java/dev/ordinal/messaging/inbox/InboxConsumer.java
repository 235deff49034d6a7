package dev.ordinal.messaging.inbox;

import static dev.ordinal.messaging.db.Tables.INBOX_POSITION;

import dev.ordinal.messaging.Servers;
import dev.ordinal.messaging.inbox.internal.InboxTransaction;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.runtime.Backoff;
import dev.ordinal.runtime.LoopContext;
import dev.ordinal.runtime.Supervisor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jooq.DSLContext;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies each message of its topics once to its database, whatever Kafka redelivers.
 *
 * <p>For every record, one transaction inserts the inbox row (message id, consumer name) first,
 * always, and then runs the {@link MessageHandler}; a handler's {@link MessageHandler#lockFor lock}
 * is taken in the inbox row's own statement. A unique violation on the inbox's primary key ({@code
 * inbox_pkey}, SQLSTATE 23505) — and only that — means the message was applied before: skipped and
 * counted, the handler not called.
 *
 * <p>Concurrency: the records of one poll are grouped by partition and key; up to {@link
 * InboxConsumerConfig#concurrency()} groups are applied at once, each group in offset order, so
 * records of one key are never applied out of order or at the same time. The next poll waits until
 * the whole batch is done, and offsets are committed only for records whose transaction committed
 * (so a rebalance, which happens inside poll, never finds work in flight).
 *
 * <p>Errors by kind: poison (no message id or event type, no payload, or the handler throws {@link
 * PoisonMessageException}) goes to {@code <topic>.dlq} with the error, the consumer and the
 * original topic/partition/offset in headers, then the partition moves on; anything else rolls
 * back, rewinds the partition to the first failed record and pauses that partition alone for its
 * backoff (from {@link InboxConsumerConfig#initialBackoff()} doubling to {@link
 * InboxConsumerConfig#maxBackoff()}, ±50 %), committing nothing past it. A permanent database error
 * ({@link #isPermanent}: SQLSTATE classes 22, 23 other than the inbox key, 42) is tried {@link
 * #PERMANENT_ATTEMPTS} times, then dead-lettered with its reason; a transient one is retried until
 * it passes. Every log line names the message id.
 *
 * <p>A commit the group refuses (this member was evicted for a batch longer than {@code
 * max.poll.interval.ms}) is counted and the next poll rejoins. After each batch the consumer stores
 * where each partition stands in {@code inbox_position}, and on assignment starts from the lower of
 * that and Kafka's committed offset, so a database restored to an earlier point applies again what
 * it lost.
 *
 * <p>Metrics: {@code ordinal.inbox.messages{consumer, outcome}} with outcome {@code applied},
 * {@code duplicate}, {@code dead_lettered} and {@code retried}; {@code
 * ordinal.inbox.commits.refused{consumer}}; {@code ordinal.inbox.rewound{consumer}}.
 */
public final class InboxConsumer implements AutoCloseable {
  /** The inbox's primary key: a violation of it, and only it, means "duplicate". */
  public static final String INBOX_CONSTRAINT = InboxTransaction.INBOX_CONSTRAINT;

  private static final Logger log = LoggerFactory.getLogger(InboxConsumer.class);

  private enum Outcome {
    APPLIED,
    DUPLICATE,
    DEAD_LETTERED,
    RETRY
  }

  private final InboxConsumerConfig config;
  private final DSLContext dsl;
  private final InboxTransaction inbox;
  private final Clock clock;
  private final Counter applied;
  private final Counter duplicates;
  private final Counter deadLettered;
  private final Counter retried;
  private final Counter rewound;
  private final Counter commitsRefused;
  private final Timer applyTime;
  private final Timer positionsTime;
  private final Timer commitTime;
  private final MeterRegistry registry;
  private final Backoff retryBackoff;
  private final CountDownLatch assigned = new CountDownLatch(1);
  private final Set<String> deadLetterTopicsReady = ConcurrentHashMap.newKeySet();
  private static final Duration LANE_PROBE_INTERVAL = Duration.ofMillis(100);

  /** Tries of a record failing with a permanent error before it goes to the dead-letter topic. */
  public static final int PERMANENT_ATTEMPTS = 3;

  /** The longest wait before retrying a record that failed because a server did not answer. */
  static final Duration UNAVAILABLE_BACKOFF = Duration.ofSeconds(1);

  /** The longest the other topics stay paused while priority records keep coming. */
  public static final Duration LANE_MAX_PAUSE = Duration.ofMillis(500);

  /** A batch failed and no record has been applied since (read and cleared by the workers). */
  private volatile boolean failedSinceApplied;

  /** Consecutive failed tries of each partition's first unapplied record. */
  private final Map<TopicPartition, Integer> failures = new HashMap<>();

  /** Paused partitions waiting out their backoff: when each may be polled again (nanoTime). */
  private final Map<TopicPartition, Long> backingOff = new HashMap<>();

  /** Per partition, the record failing with a permanent error and how often it did: {offset, n}. */
  private final Map<TopicPartition, long[]> permanentRuns = new HashMap<>();

  private long nextLaneProbe;
  private boolean lanePaused;
  private long pausedSince;
  private long othersTurnSince;
  private KafkaConsumer<String, String> consumer;
  private KafkaProducer<String, String> deadLetters;
  private ExecutorService workers;
  private Supervisor.SupervisedLoop loop;
  private Supervisor ownSupervisor;

  public InboxConsumer(
      InboxConsumerConfig config,
      DSLContext dsl,
      MessageHandler handler,
      MeterRegistry registry,
      Clock clock) {
    this.config = config;
    this.dsl = dsl;
    this.inbox = new InboxTransaction(dsl, config.consumerName(), handler, clock);
    this.clock = clock;
    this.registry = registry;
    this.retryBackoff = Backoff.exponential(config.initialBackoff(), config.maxBackoff());
    this.applied = counter(registry, "applied");
    this.duplicates = counter(registry, "duplicate");
    this.deadLettered = counter(registry, "dead_lettered");
    this.retried = counter(registry, "retried");
    this.rewound =
        Counter.builder("ordinal.inbox.rewound")
            .description(
                "Records read again on assignment because the database stood before the committed"
                    + " offset")
            .tag("consumer", config.consumerName())
            .register(registry);
    this.commitsRefused =
        Counter.builder("ordinal.inbox.commits.refused")
            .description(
                "Offset commits the group refused because it had rebalanced without this member")
            .tag("consumer", config.consumerName())
            .register(registry);
    this.applyTime = phase(registry, "apply");
    this.positionsTime = phase(registry, "positions");
    this.commitTime = phase(registry, "commit");
  }

  /**
   * Where a poll's batch spends its time: applying its records (the transactions), storing the
   * positions in the database, committing the offsets to Kafka. The last two are the loop's own
   * work between batches, while the workers wait.
   */
  private Timer phase(MeterRegistry registry, String phase) {
    return Timer.builder("ordinal.inbox.batch")
        .description(
            "Time of each phase of a poll's batch: apply (the records' transactions), positions"
                + " (stored in the database), commit (offsets to Kafka)")
        .tag("consumer", config.consumerName())
        .tag("phase", phase)
        .register(registry);
  }

  private Counter counter(MeterRegistry registry, String outcome) {
    return Counter.builder("ordinal.inbox.messages")
        .description("Messages seen by an inbox consumer, by outcome")
        .tag("consumer", config.consumerName())
        .tag("outcome", outcome)
        .register(registry);
  }

  /**
   * Starts the poll loop on a thread of its own, under a supervisor of its own (the registry's
   * {@code ordinal.loop.*} meters name it {@code inbox-<consumer>}).
   */
  public synchronized InboxConsumer start() {
    ownSupervisor = new Supervisor("inbox-" + config.consumerName(), registry);
    return start(ownSupervisor, "inbox-consumer");
  }

  /**
   * Starts the poll loop as loop {@code loopName} of {@code supervisor}: a failure of the loop (a
   * commit refused after a rebalance, a broker error) closes the Kafka consumer and the supervisor
   * runs the loop again with a new one after a backoff; a failed batch rewinds in place and counts
   * as a restart too.
   */
  public synchronized InboxConsumer start(Supervisor supervisor, String loopName) {
    if (loop != null) {
      throw new IllegalStateException("already started");
    }
    if (config.deadLetter()) {
      deadLetters =
          new KafkaProducer<>(
              Map.of(
                  ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                  config.bootstrapServers(),
                  ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                  true,
                  ProducerConfig.ACKS_CONFIG,
                  "all",
                  ProducerConfig.CLIENT_ID_CONFIG,
                  config.consumerName() + "-dlq"),
              new StringSerializer(),
              new StringSerializer());
    }
    workers =
        Executors.newFixedThreadPool(
            config.concurrency(), r -> new Thread(r, "inbox-" + config.consumerName() + "-worker"));
    loop = supervisor.start(loopName, this::loop);
    return this;
  }

  private Map<String, Object> consumerProps() {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, config.groupId());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, config.consumerName() + "-" + config.groupId());
    if (!config.priorityTopics().isEmpty()) {
      // a poll is applied as a whole before the next one: smaller polls let a priority record
      // in sooner
      props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 100);
      // the broker answers one connection's requests in order: a fetch it holds open waiting for
      // data (500 ms by default) would delay the lane probe's end-offset request behind it
      props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
    }
    props.putAll(config.kafka());
    return props;
  }

  /** Waits until the group has given this consumer its partitions (or the wait ends). */
  public boolean awaitAssignment(Duration timeout) throws InterruptedException {
    return assigned.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  public long applied() {
    return (long) applied.count();
  }

  public long duplicates() {
    return (long) duplicates.count();
  }

  public long deadLettered() {
    return (long) deadLettered.count();
  }

  public long retried() {
    return (long) retried.count();
  }

  /** Commits refused since start because the group had moved on without this member. */
  public long commitsRefused() {
    return (long) commitsRefused.count();
  }

  /** Records read again on assignment because the database stood before the committed offset. */
  public long rewound() {
    return (long) rewound.count();
  }

  /** One life of the poll loop: a Kafka consumer from subscription to failure or stop. */
  private void loop(LoopContext ctx) throws InterruptedException {
    failures.clear();
    failedSinceApplied = false;
    backingOff.clear();
    permanentRuns.clear();
    nextLaneProbe = 0;
    lanePaused = false;
    pausedSince = 0;
    othersTurnSince = 0;
    consumer =
        new KafkaConsumer<>(consumerProps(), new StringDeserializer(), new StringDeserializer());
    try {
      ctx.onStop(consumer::wakeup);
      consumer.subscribe(
          config.topics(),
          new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
              // a batch is finished and committed before the next poll: nothing is in flight
              forget(partitions);
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
              forget(partitions);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
              startFromDatabase(partitions);
              assigned.countDown();
            }
          });
      while (ctx.running()) {
        resumeDue();
        ConsumerRecords<String, String> polled = consumer.poll(config.pollTimeout());
        Map<TopicPartition, List<ConsumerRecord<String, String>>> records = lanes(polled);
        if (records.isEmpty()) {
          if (failures.isEmpty()) {
            ctx.healthy();
          }
          continue;
        }
        long applying = System.nanoTime();
        Map<TopicPartition, Failure> firstFailed = applyBatch(records, ctx);
        applyTime.record(System.nanoTime() - applying, TimeUnit.NANOSECONDS);
        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        Throwable cause = null;
        for (Map.Entry<TopicPartition, List<ConsumerRecord<String, String>>> e :
            records.entrySet()) {
          TopicPartition tp = e.getKey();
          List<ConsumerRecord<String, String>> rs = e.getValue();
          Failure failed = firstFailed.get(tp);
          if (failed == null) {
            failures.remove(tp);
            permanentRuns.remove(tp);
            commit.put(tp, new OffsetAndMetadata(rs.get(rs.size() - 1).offset() + 1));
            continue;
          }
          long resumeFrom = failed.offset();
          if (failed.permanent() && permanentAttempt(tp, failed.offset()) >= PERMANENT_ATTEMPTS) {
            Applied parked =
                deadLetter(
                    failed.record(),
                    new PoisonMessageException(
                        "permanent error after "
                            + PERMANENT_ATTEMPTS
                            + " attempts: "
                            + describe(failed.cause()),
                        failed.cause()));
            if (parked.outcome() == Outcome.DEAD_LETTERED) {
              // the partition goes on from the next record at once; the rest of the batch is
              // polled again (the inbox drops what was applied of it)
              permanentRuns.remove(tp);
              failures.remove(tp);
              consumer.seek(tp, failed.offset() + 1);
              commit.put(tp, new OffsetAndMetadata(failed.offset() + 1));
              continue;
            }
          }
          consumer.seek(tp, resumeFrom);
          if (resumeFrom > rs.get(0).offset()) {
            commit.put(tp, new OffsetAndMetadata(resumeFrom));
          }
          Duration wait = backoff(failures.merge(tp, 1, Integer::sum));
          if (Servers.isUnavailable(failed.cause()) && wait.compareTo(UNAVAILABLE_BACKOFF) > 0) {
            // the database (or the broker) is away: each try already waits for a connection,
            // and the record must go through as soon as the server is back
            wait = UNAVAILABLE_BACKOFF;
          }
          // this partition alone waits: the others go on meanwhile
          consumer.pause(List.of(tp));
          backingOff.put(tp, System.nanoTime() + wait.toNanos());
          cause = failed.cause();
        }
        long storing = System.nanoTime();
        storePositions(commit);
        long committing = System.nanoTime();
        positionsTime.record(committing - storing, TimeUnit.NANOSECONDS);
        commit(commit);
        commitTime.record(System.nanoTime() - committing, TimeUnit.NANOSECONDS);
        if (cause != null) {
          // logged per message already; the loop's health shows it, and it counts as a restart
          ctx.failed(cause);
          failedSinceApplied = true;
        } else if (failures.isEmpty()) {
          ctx.healthy();
        }
      }
    } catch (WakeupException e) {
      if (ctx.running()) {
        throw e;
      }
    } finally {
      consumer.close(Duration.ofSeconds(5));
    }
  }

  /**
   * The first record of a partition that must be applied again, why, and whether the cause is
   * permanent (retrying the same record cannot help).
   */
  private record Failure(
      ConsumerRecord<String, String> record, Throwable cause, boolean permanent) {
    long offset() {
      return record.offset();
    }
  }

  /**
   * On assignment, each partition starts from the lower of Kafka's committed offset and the
   * position the database holds for it ({@code inbox_position}, written after each batch's
   * transactions committed). They agree in normal running; the database is behind when it was
   * restored to an earlier point, and then what it lost is applied again (what it kept of it is
   * dropped by the inbox). A partition without a stored position starts from the committed offset.
   */
  private void startFromDatabase(Collection<TopicPartition> partitions) {
    if (partitions.isEmpty()) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> committed =
        consumer.committed(Set.copyOf(partitions), Duration.ofSeconds(10));
    Map<TopicPartition, Long> stored = new HashMap<>();
    dsl.select(INBOX_POSITION.TOPIC, INBOX_POSITION.PARTITION_NO, INBOX_POSITION.NEXT_OFFSET)
        .from(INBOX_POSITION)
        .where(INBOX_POSITION.CONSUMER.eq(config.consumerName()))
        .and(INBOX_POSITION.TOPIC.in(partitions.stream().map(TopicPartition::topic).toList()))
        .forEach(r -> stored.put(new TopicPartition(r.value1(), r.value2()), r.value3()));
    for (TopicPartition tp : partitions) {
      OffsetAndMetadata c = committed.get(tp);
      Long position = stored.get(tp);
      if (c == null || position == null || position >= c.offset()) {
        continue;
      }
      log.warn(
          "{}: {} starts at {}, where its database stands, not at the committed {}: the database"
              + " was restored to an earlier point, so {} record(s) are read again (those it still"
              + " holds are dropped as duplicates)",
          config.consumerName(),
          tp,
          position,
          c.offset(),
          c.offset() - position);
      consumer.seek(tp, position);
      rewound.increment(c.offset() - position);
    }
  }

  /**
   * Stores where each partition stands, after the batch's transactions committed and before Kafka
   * is told. A failure only means reading more again after a reassignment: logged, not fatal.
   */
  private void storePositions(Map<TopicPartition, OffsetAndMetadata> offsets) {
    if (offsets.isEmpty()) {
      return;
    }
    try {
      var insert =
          dsl.insertInto(
              INBOX_POSITION,
              INBOX_POSITION.CONSUMER,
              INBOX_POSITION.TOPIC,
              INBOX_POSITION.PARTITION_NO,
              INBOX_POSITION.NEXT_OFFSET);
      for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
        insert =
            insert.values(
                config.consumerName(),
                e.getKey().topic(),
                e.getKey().partition(),
                e.getValue().offset());
      }
      insert
          .onConflict(INBOX_POSITION.CONSUMER, INBOX_POSITION.TOPIC, INBOX_POSITION.PARTITION_NO)
          .doUpdate()
          .set(INBOX_POSITION.NEXT_OFFSET, DSL.excluded(INBOX_POSITION.NEXT_OFFSET))
          .set(INBOX_POSITION.UPDATED_AT, DSL.currentOffsetDateTime())
          .execute();
    } catch (DataAccessException e) {
      log.warn("{}: positions not stored: {}", config.consumerName(), e.toString());
    }
  }

  /** Resumes the partitions whose backoff is over. */
  private void resumeDue() {
    if (backingOff.isEmpty()) {
      return;
    }
    long now = System.nanoTime();
    List<TopicPartition> due = new ArrayList<>();
    backingOff.entrySet().removeIf(e -> now - e.getValue() >= 0 && due.add(e.getKey()));
    due.retainAll(consumer.assignment());
    // a partition the priority lane holds back is paused again by the lane at this poll
    consumer.resume(due);
  }

  /** Resumes {@code tps} except those waiting out a backoff. */
  private void resumeExceptBackingOff(List<TopicPartition> tps) {
    consumer.resume(tps.stream().filter(tp -> !backingOff.containsKey(tp)).toList());
  }

  /** How often the record at {@code offset} of {@code tp} has now failed with a permanent error. */
  private long permanentAttempt(TopicPartition tp, long offset) {
    long[] run = permanentRuns.get(tp);
    if (run == null || run[0] != offset) {
      run = new long[] {offset, 0};
      permanentRuns.put(tp, run);
    }
    return ++run[1];
  }

  private void forget(Collection<TopicPartition> partitions) {
    for (TopicPartition tp : partitions) {
      failures.remove(tp);
      backingOff.remove(tp);
      permanentRuns.remove(tp);
    }
  }

  /**
   * Priority lanes (the Kafka port of a priority queue): while records wait on a priority topic
   * beyond the ones in hand, the other topics' partitions are paused, and their records in this
   * poll are given back (the partition is rewound to the first of them), so a person's request does
   * not queue behind thousands of scheduled ones. Priority records in hand are applied first in the
   * batch. Whether anything waits is asked of the broker (end offsets against this consumer's
   * positions), since the fetch queue hands over buffered records of other topics first: on every
   * poll that returned priority records or while paused, else every {@code LANE_PROBE_INTERVAL}.
   *
   * <p>A steady stream of priority records always has one waiting by the time a batch is done, so
   * the pause is bounded: after {@link #LANE_MAX_PAUSE} the other topics get one poll's records (at
   * most {@code max.poll.records}), then the priority lane is served again. A person waits at most
   * one such batch more; the scheduled work is never starved.
   *
   * <p>Returns the records to apply now, by partition.
   */
  private Map<TopicPartition, List<ConsumerRecord<String, String>>> lanes(
      ConsumerRecords<String, String> polled) {
    Map<TopicPartition, List<ConsumerRecord<String, String>>> batch = new LinkedHashMap<>();
    for (TopicPartition tp : polled.partitions()) {
      batch.put(tp, polled.records(tp));
    }
    if (config.priorityTopics().isEmpty()) {
      return batch;
    }
    List<TopicPartition> priority = new ArrayList<>();
    List<TopicPartition> others = new ArrayList<>();
    for (TopicPartition tp : consumer.assignment()) {
      (config.priorityTopics().contains(tp.topic()) ? priority : others).add(tp);
    }
    long now = System.nanoTime();
    if (othersTurnSince != 0) {
      // the other topics' turn: this poll's records are applied whatever waits, once some of
      // theirs came (or the turn has lasted as long as a pause may)
      boolean theirs = others.stream().anyMatch(tp -> !polled.records(tp).isEmpty());
      if (theirs || now - othersTurnSince >= LANE_MAX_PAUSE.toNanos()) {
        othersTurnSince = 0;
        pausedSince = 0;
        lanePaused = false;
      }
      return batch;
    }
    boolean inHand = priority.stream().anyMatch(tp -> !polled.records(tp).isEmpty());
    if (!priority.isEmpty() && (inHand || lanePaused || now >= nextLaneProbe)) {
      nextLaneProbe = now + LANE_PROBE_INTERVAL.toNanos();
      try {
        Map<TopicPartition, Long> ends = consumer.endOffsets(priority, Duration.ofSeconds(1));
        boolean waiting = false;
        for (TopicPartition tp : priority) {
          Long end = ends.get(tp);
          waiting |= end != null && end > consumer.position(tp, Duration.ofSeconds(1));
        }
        lanePaused = waiting;
      } catch (org.apache.kafka.common.errors.TimeoutException e) {
        // the broker did not answer in time: keep the lanes as they are until the next probe
      }
    }
    if (!lanePaused) {
      pausedSince = 0;
      resumeExceptBackingOff(others);
      return batch;
    }
    if (pausedSince == 0) {
      pausedSince = now;
    } else if (now - pausedSince >= LANE_MAX_PAUSE.toNanos()) {
      othersTurnSince = now;
      resumeExceptBackingOff(others);
      return batch;
    }
    consumer.pause(others);
    for (TopicPartition tp : others) {
      List<ConsumerRecord<String, String>> given = batch.remove(tp);
      if (given != null && !given.isEmpty()) {
        consumer.seek(tp, given.get(0).offset());
      }
    }
    return batch;
  }

  /**
   * Applies one poll's records, groups of one key in parallel (priority topics' groups first);
   * returns, per partition, the offset of the first record that must be retried.
   */
  /**
   * Applies a poll's records; the loop is healthy again as soon as one record of it goes through
   * after a failed batch (its servers answer again), not only when the batch ends: a long batch
   * after a transient fault must not keep a working consumer unready. A partition still waiting to
   * retry shows in the loop's last error and restart count, and fails the loop again if its retry
   * fails.
   */
  private Map<TopicPartition, Failure> applyBatch(
      Map<TopicPartition, List<ConsumerRecord<String, String>>> records, LoopContext ctx)
      throws InterruptedException {
    Map<List<Object>, List<ConsumerRecord<String, String>>> groups = new LinkedHashMap<>();
    List<TopicPartition> partitions = new ArrayList<>(records.keySet());
    partitions.sort(
        (a, b) ->
            Boolean.compare(
                !config.priorityTopics().contains(a.topic()),
                !config.priorityTopics().contains(b.topic())));
    for (TopicPartition tp : partitions) {
      for (ConsumerRecord<String, String> r : records.get(tp)) {
        groups
            .computeIfAbsent(List.of(tp, Objects.toString(r.key())), k -> new ArrayList<>())
            .add(r);
      }
    }
    Map<TopicPartition, Failure> firstFailed = new ConcurrentHashMap<>();
    List<Future<?>> running = new ArrayList<>(groups.size());
    for (List<ConsumerRecord<String, String>> group : groups.values()) {
      running.add(
          workers.submit(
              () -> {
                for (ConsumerRecord<String, String> r : group) {
                  Applied a = apply(r);
                  if (a.outcome() != Outcome.RETRY && failedSinceApplied) {
                    failedSinceApplied = false;
                    ctx.healthy();
                  }
                  if (a.outcome() == Outcome.RETRY) {
                    // later records of this key wait: their order matters
                    firstFailed.merge(
                        new TopicPartition(r.topic(), r.partition()),
                        new Failure(r, a.cause(), isPermanent(a.cause())),
                        (x, y) -> x.offset() <= y.offset() ? x : y);
                    return;
                  }
                }
              }));
    }
    for (Future<?> f : running) {
      try {
        f.get();
      } catch (ExecutionException e) {
        throw new IllegalStateException("An inbox worker failed", e.getCause());
      }
    }
    return firstFailed;
  }

  /** What applying one record came to; {@code cause} is why it must be retried. */
  private record Applied(Outcome outcome, Throwable cause) {}

  private Applied apply(ConsumerRecord<String, String> record) {
    Envelope message;
    try {
      message = Envelope.of(record);
    } catch (PoisonMessageException e) {
      return deadLetter(record, e);
    }
    try {
      if (!inbox.apply(message)) {
        duplicates.increment();
        log.debug("Message {} already applied by {}", message.messageId(), config.consumerName());
        return new Applied(Outcome.DUPLICATE, null);
      }
      applied.increment();
      return new Applied(Outcome.APPLIED, null);
    } catch (PoisonMessageException e) {
      return deadLetter(record, e);
    } catch (RuntimeException e) {
      return retry(message, e);
    }
  }

  private Applied deadLetter(ConsumerRecord<String, String> record, PoisonMessageException e) {
    String where = record.topic() + "-" + record.partition() + "@" + record.offset();
    if (!config.deadLetter()) {
      deadLettered.increment();
      log.warn("Skipping poison record {}: {}", where, e.getMessage());
      return new Applied(Outcome.DEAD_LETTERED, null);
    }
    String dlq = InboxConsumerConfig.deadLetterTopic(record.topic());
    try {
      if (deadLetterTopicsReady.add(dlq)) {
        Topics.ensure(config.bootstrapServers(), dlq, 1);
      }
      RecordHeaders headers = new RecordHeaders(record.headers().toArray());
      headers.add(MessageHeaders.DLQ_ERROR, MessageHeaders.encode(oneLine(e.getMessage())));
      headers.add(MessageHeaders.DLQ_CONSUMER, MessageHeaders.encode(config.consumerName()));
      headers.add(MessageHeaders.DLQ_TOPIC, MessageHeaders.encode(record.topic()));
      headers.add(
          MessageHeaders.DLQ_PARTITION,
          MessageHeaders.encode(Integer.toString(record.partition())));
      headers.add(MessageHeaders.DLQ_OFFSET, MessageHeaders.encode(Long.toString(record.offset())));
      headers.add(MessageHeaders.DLQ_AT, MessageHeaders.encode(clock.instant().toString()));
      deadLetters
          .send(new ProducerRecord<>(dlq, null, record.key(), record.value(), headers))
          .get();
      deadLettered.increment();
      log.warn("Dead-lettered {} to {}: {}", where, dlq, e.getMessage());
      return new Applied(Outcome.DEAD_LETTERED, null);
    } catch (Exception sendFailed) {
      deadLetterTopicsReady.remove(dlq);
      retried.increment();
      log.warn(
          "Could not dead-letter {} to {}; it will be retried: {}",
          where,
          dlq,
          sendFailed.toString());
      if (sendFailed instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return new Applied(Outcome.RETRY, sendFailed);
    }
  }

  private Applied retry(Envelope message, RuntimeException e) {
    retried.increment();
    log.warn(
        "Message {} ({}-{}@{}) failed and will be retried: {}",
        message.messageId(),
        message.topic(),
        message.partition(),
        message.offset(),
        e.toString());
    return new Applied(Outcome.RETRY, e);
  }

  /**
   * True when retrying the same record cannot succeed: PostgreSQL's data exceptions (SQLSTATE class
   * 22: a value too long for its column, a number out of range), integrity violations (23) other
   * than the inbox's key, and syntax or access rule violations (42). Such a record goes to the
   * dead-letter topic after {@link #PERMANENT_ATTEMPTS} tries. Everything else (the server away, a
   * deadlock, a timeout) is transient and retried until it passes.
   */
  public static boolean isPermanent(Throwable e) {
    java.sql.SQLException sql = sqlCause(e);
    String state = sql == null ? null : sql.getSQLState();
    return state != null
        && (state.startsWith("22") || state.startsWith("23") || state.startsWith("42"));
  }

  /** The first SQL exception among {@code e}'s causes, or null. */
  private static java.sql.SQLException sqlCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.sql.SQLException sql) {
        return sql;
      }
    }
    return null;
  }

  private static String describe(Throwable e) {
    java.sql.SQLException sql = sqlCause(e);
    if (sql == null) {
      return oneLine(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    }
    return (sql.getSQLState() == null ? "" : "SQLSTATE " + sql.getSQLState() + ": ")
        + oneLine(sql.getMessage());
  }

  /** Commits {@code offsets}; a commit the group refused (this member was evicted) is not fatal. */
  private void commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
    if (offsets.isEmpty()) {
      return;
    }
    try {
      consumer.commitSync(offsets);
    } catch (CommitFailedException | RebalanceInProgressException e) {
      commitsRefused.increment();
      // the group moved on without this member (a batch longer than max.poll.interval.ms): its
      // partitions may be another's now. The next poll rejoins; whatever was applied and not
      // committed comes again and the inbox drops it.
      log.warn(
          "{}: offsets not committed, the group rebalanced meanwhile; rejoining: {}",
          config.consumerName(),
          e.getMessage());
    }
  }

  /** True only for a unique violation of the inbox's own primary key. */
  public static boolean isInboxDuplicate(DataAccessException e) {
    return InboxTransaction.isInboxDuplicate(e);
  }

  /**
   * Applies {@code message} as the consumer applies each record, without Kafka: in one transaction
   * of {@code dsl}, the inbox row of ({@code message}, {@code consumerName}) first (with the
   * handler's {@link MessageHandler#lockFor lock} in the same statement), then the handler. For
   * tools that feed messages by hand (labs, benchmarks).
   *
   * @return true when applied, false when {@code consumerName} had applied it before (nothing
   *     written)
   * @throws RuntimeException what the handler or the database threw; the transaction rolled back
   */
  public static boolean applyOnce(
      DSLContext dsl, String consumerName, MessageHandler handler, Envelope message, Clock clock) {
    return new InboxTransaction(dsl, consumerName, handler, clock).apply(message);
  }

  /** The wait after the {@code attempt}-th failure in a row of a partition's record. */
  private Duration backoff(int attempt) {
    return retryBackoff.delay(attempt);
  }

  private static String oneLine(String s) {
    return s == null ? "" : s.replace('\n', ' ');
  }

  /** Stops polling, lets the batch in hand finish and commit, and leaves the group. */
  @Override
  public synchronized void close() {
    if (loop != null) {
      loop.close();
    }
    if (ownSupervisor != null) {
      ownSupervisor.close();
    }
    if (workers != null) {
      workers.shutdownNow();
    }
    if (deadLetters != null) {
      deadLetters.close(Duration.ofSeconds(5));
    }
  }
}
