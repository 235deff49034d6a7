package dev.ordinal.messaging;

import static dev.ordinal.messaging.db.Tables.INBOX;

import dev.ordinal.runtime.LoopContext;
import dev.ordinal.runtime.Supervisor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
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
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jooq.DSLContext;
import org.jooq.exception.DataAccessException;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies each message of its topics once to its database, whatever Kafka redelivers.
 *
 * <p>For every record, one transaction inserts the inbox row (message id, consumer name) first and
 * then runs the {@link MessageHandler}. A unique violation on the inbox's primary key ({@code
 * inbox_pkey}, SQLSTATE 23505) — and only that — means the message was applied before: skipped and
 * counted.
 *
 * <p>Concurrency: the records of one poll are grouped by partition and key; up to {@link
 * InboxConsumerConfig#concurrency()} groups are applied at once, each group in offset order, so
 * records of one key are never applied out of order or at the same time. The next poll waits until
 * the whole batch is done, and offsets are committed only for records whose transaction committed
 * (so a rebalance, which happens inside poll, never finds work in flight).
 *
 * <p>Errors by kind: poison (no message id or event type, no payload, or the handler throws {@link
 * PoisonMessageException}) goes to {@code <topic>.dlq} with the error, the consumer and the
 * original topic/partition/offset in headers, then the partition moves on; anything else (database
 * down, deadlock, a real constraint violation) rolls back, rewinds the partition to the first
 * failed record and retries it with backoff, committing nothing past it. Every log line names the
 * message id.
 *
 * <p>Metrics: {@code ordinal.inbox.messages{consumer, outcome}} with outcome {@code applied},
 * {@code duplicate}, {@code dead_lettered} and {@code retried}.
 */
public final class InboxConsumer implements AutoCloseable {
  /** The inbox's primary key: a violation of it, and only it, means "duplicate". */
  public static final String INBOX_CONSTRAINT = "inbox_pkey";

  private static final Logger log = LoggerFactory.getLogger(InboxConsumer.class);
  private static final String UNIQUE_VIOLATION = "23505";

  private enum Outcome {
    APPLIED,
    DUPLICATE,
    DEAD_LETTERED,
    RETRY
  }

  private final InboxConsumerConfig config;
  private final DSLContext dsl;
  private final MessageHandler handler;
  private final Clock clock;
  private final Counter applied;
  private final Counter duplicates;
  private final Counter deadLettered;
  private final Counter retried;
  private final MeterRegistry registry;
  private final CountDownLatch assigned = new CountDownLatch(1);
  private final Set<String> deadLetterTopicsReady = ConcurrentHashMap.newKeySet();
  private static final Duration LANE_PROBE_INTERVAL = Duration.ofMillis(100);

  /** The longest wait before retrying a record that failed because a server did not answer. */
  static final Duration UNAVAILABLE_BACKOFF = Duration.ofSeconds(1);

  /** The longest the other topics stay paused while priority records keep coming. */
  public static final Duration LANE_MAX_PAUSE = Duration.ofMillis(500);

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
    this.handler = handler;
    this.clock = clock;
    this.registry = registry;
    this.applied = counter(registry, "applied");
    this.duplicates = counter(registry, "duplicate");
    this.deadLettered = counter(registry, "dead_lettered");
    this.retried = counter(registry, "retried");
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

  /** One life of the poll loop: a Kafka consumer from subscription to failure or stop. */
  private void loop(LoopContext ctx) throws InterruptedException {
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
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
              assigned.countDown();
            }
          });
      Map<TopicPartition, Integer> failures = new HashMap<>();
      while (ctx.running()) {
        ConsumerRecords<String, String> polled = consumer.poll(config.pollTimeout());
        Map<TopicPartition, List<ConsumerRecord<String, String>>> records = lanes(polled);
        if (records.isEmpty()) {
          if (failures.isEmpty()) {
            ctx.healthy();
          }
          continue;
        }
        Map<TopicPartition, Failure> firstFailed = applyBatch(records);
        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        Duration backoff = Duration.ZERO;
        Throwable cause = null;
        for (Map.Entry<TopicPartition, List<ConsumerRecord<String, String>>> e :
            records.entrySet()) {
          TopicPartition tp = e.getKey();
          List<ConsumerRecord<String, String>> rs = e.getValue();
          Failure failed = firstFailed.get(tp);
          if (failed == null) {
            failures.remove(tp);
            commit.put(tp, new OffsetAndMetadata(rs.get(rs.size() - 1).offset() + 1));
          } else {
            consumer.seek(tp, failed.offset());
            if (failed.offset() > rs.get(0).offset()) {
              commit.put(tp, new OffsetAndMetadata(failed.offset()));
            }
            Duration wait = backoff(failures.merge(tp, 1, Integer::sum));
            if (Servers.isUnavailable(failed.cause()) && wait.compareTo(UNAVAILABLE_BACKOFF) > 0) {
              // the database (or the broker) is away: each try already waits for a connection,
              // and the record must go through as soon as the server is back
              wait = UNAVAILABLE_BACKOFF;
            }
            backoff = max(backoff, wait);
            cause = failed.cause();
          }
        }
        if (!commit.isEmpty()) {
          consumer.commitSync(commit);
        }
        if (cause != null) {
          // logged per message already; the loop's health shows it, and it counts as a restart
          ctx.failed(cause);
          ctx.await(backoff);
        } else {
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

  /** The first record of a partition that must be applied again, and why. */
  private record Failure(long offset, Throwable cause) {}

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
      consumer.resume(others);
      return batch;
    }
    if (pausedSince == 0) {
      pausedSince = now;
    } else if (now - pausedSince >= LANE_MAX_PAUSE.toNanos()) {
      othersTurnSince = now;
      consumer.resume(others);
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
  private Map<TopicPartition, Failure> applyBatch(
      Map<TopicPartition, List<ConsumerRecord<String, String>>> records)
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
                  if (a.outcome() == Outcome.RETRY) {
                    // later records of this key wait: their order matters
                    firstFailed.merge(
                        new TopicPartition(r.topic(), r.partition()),
                        new Failure(r.offset(), a.cause()),
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
      dsl.transaction(
          c -> {
            DSLContext tx = c.dsl();
            tx.insertInto(INBOX)
                .set(INBOX.MESSAGE_ID, message.messageId())
                .set(INBOX.CONSUMER, config.consumerName())
                .set(INBOX.TOPIC, message.topic())
                .set(INBOX.PARTITION_NO, message.partition())
                .set(INBOX.RECORD_OFFSET, message.offset())
                .set(INBOX.PROCESSED_AT, OffsetDateTime.now(clock))
                .execute();
            handler.handle(tx, message);
          });
      applied.increment();
      return new Applied(Outcome.APPLIED, null);
    } catch (DataAccessException e) {
      if (isInboxDuplicate(e)) {
        duplicates.increment();
        log.debug("Message {} already applied by {}", message.messageId(), config.consumerName());
        return new Applied(Outcome.DUPLICATE, null);
      }
      return retry(message, e);
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

  /** True only for a unique violation of the inbox's own primary key. */
  public static boolean isInboxDuplicate(DataAccessException e) {
    if (!UNIQUE_VIOLATION.equals(e.sqlState())) {
      return false;
    }
    PSQLException pg = e.getCause(PSQLException.class);
    ServerErrorMessage detail = pg == null ? null : pg.getServerErrorMessage();
    return detail != null && INBOX_CONSTRAINT.equals(detail.getConstraint());
  }

  private Duration backoff(int attempt) {
    long ms = config.initialBackoff().toMillis() << Math.min(attempt - 1, 20);
    return Duration.ofMillis(Math.min(ms, config.maxBackoff().toMillis()));
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
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
