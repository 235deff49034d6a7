package dev.ordinal.messaging.inbox;

import dev.ordinal.messaging.inbox.internal.DeadLetterPublisher;
import dev.ordinal.messaging.inbox.internal.ErrorKinds;
import dev.ordinal.messaging.inbox.internal.InboxMetrics;
import dev.ordinal.messaging.inbox.internal.InboxTransaction;
import dev.ordinal.messaging.inbox.internal.PollLoop;
import dev.ordinal.runtime.LoopOwner;
import dev.ordinal.runtime.Supervisor;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.jooq.exception.DataAccessException;

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
 * ({@link #isPermanent}: SQLSTATE classes 22, 23 other than the inbox key) is tried {@link
 * #PERMANENT_ATTEMPTS} times, then dead-lettered with its reason; a transient one is retried until
 * it passes. Every log line names the message id.
 *
 * <p>A commit the group refuses (this member was evicted for a batch longer than {@code
 * max.poll.interval.ms}) is counted and the next poll rejoins. After each batch the consumer stores
 * where each partition stands in {@code inbox_position}, and on assignment starts from the lower of
 * that and Kafka's committed offset, so a database restored to an earlier point applies again what
 * it lost.
 *
 * <p>Priority lanes ({@link InboxConsumerConfig#priorityTopics()}): while records wait on a
 * priority topic, the other topics are paused, for at most {@link #LANE_MAX_PAUSE} at a time; then
 * they get one poll's records, and the priority topics are served again.
 *
 * <p>Metrics: {@code ordinal.inbox.messages{consumer, outcome}} with outcome {@code applied},
 * {@code duplicate}, {@code dead_lettered} and {@code retried}; {@code
 * ordinal.inbox.commits.refused{consumer}}; {@code ordinal.inbox.rewound{consumer}}; {@code
 * ordinal.inbox.batch{consumer, phase}}.
 *
 * <p>This class is the façade; the mechanisms live in {@code dev.ordinal.messaging.inbox.internal}
 * ({@code PollLoop}, {@code PriorityLanes}, {@code PartitionBackoff}, {@code PositionStore}, {@code
 * DeadLetterPublisher}, {@code InboxTransaction}), which no other module uses.
 */
public final class InboxConsumer implements AutoCloseable {
  /** The inbox's primary key: a violation of it, and only it, means "duplicate". */
  public static final String INBOX_CONSTRAINT = InboxTransaction.INBOX_CONSTRAINT;

  /** Tries of a record failing with a permanent error before it goes to the dead-letter topic. */
  public static final int PERMANENT_ATTEMPTS = PollLoop.PERMANENT_ATTEMPTS;

  /** The longest wait before retrying a record that failed because a server did not answer. */
  static final Duration UNAVAILABLE_BACKOFF = PollLoop.UNAVAILABLE_BACKOFF;

  /** The longest the other topics stay paused while priority records keep coming. */
  public static final Duration LANE_MAX_PAUSE = PollLoop.LANE_MAX_PAUSE;

  private final InboxConsumerConfig config;
  private final MeterRegistry registry;
  private final InboxTransaction inbox;
  private final InboxMetrics metrics;
  private final CountDownLatch assigned = new CountDownLatch(1);
  private DeadLetterPublisher deadLetters;
  private ExecutorService workers;
  private final LoopOwner owner = new LoopOwner();

  public InboxConsumer(
      InboxConsumerConfig config,
      DSLContext dsl,
      MessageHandler handler,
      MeterRegistry registry,
      Clock clock) {
    this.config = config;
    this.registry = registry;
    this.inbox = new InboxTransaction(dsl, config.consumerName(), handler, clock);
    this.metrics = new InboxMetrics(registry, config.consumerName());
  }

  /**
   * Starts the poll loop on a thread of its own, under a supervisor of its own (the registry's
   * {@code ordinal.loop.*} meters name it {@code inbox-<consumer>}).
   *
   * @throws IllegalStateException when already started or closed
   */
  public synchronized InboxConsumer start() {
    owner.startOwn("inbox-" + config.consumerName(), registry, "inbox-consumer", pollLoop());
    return this;
  }

  /**
   * Starts the poll loop as loop {@code loopName} of {@code supervisor}: a failure of the loop (a
   * commit refused after a rebalance, a broker error) closes the Kafka consumer and the supervisor
   * runs the loop again with a new one after a backoff; a failed batch rewinds in place and counts
   * as a restart too.
   *
   * @throws IllegalStateException when already started or closed
   */
  public synchronized InboxConsumer start(Supervisor supervisor, String loopName) {
    owner.start(supervisor, loopName, pollLoop());
    return this;
  }

  /** The loop to start, with its workers and dead-letter producer, once it may start. */
  private PollLoop pollLoop() {
    owner.checkStartable();
    if (config.deadLetter()) {
      deadLetters = new DeadLetterPublisher(config, inbox.clock());
    }
    workers =
        Executors.newFixedThreadPool(
            config.concurrency(), r -> new Thread(r, "inbox-" + config.consumerName() + "-worker"));
    return new PollLoop(
        config, inbox.dsl(), inbox, deadLetters, workers, metrics, assigned::countDown);
  }

  /** Waits until the group has given this consumer its partitions (or the wait ends). */
  public boolean awaitAssignment(Duration timeout) throws InterruptedException {
    return assigned.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  public long applied() {
    return metrics.applied();
  }

  public long duplicates() {
    return metrics.duplicates();
  }

  public long deadLettered() {
    return metrics.deadLettered();
  }

  public long retried() {
    return metrics.retried();
  }

  /** Commits refused since start because the group had moved on without this member. */
  public long commitsRefused() {
    return metrics.commitsRefused();
  }

  /** Records read again on assignment because the database stood before the committed offset. */
  public long rewound() {
    return metrics.rewound();
  }

  /**
   * True when retrying the same record cannot succeed: PostgreSQL's data exceptions (SQLSTATE class
   * 22: a value too long for its column, a number out of range) and integrity violations (23) other
   * than the inbox's key. Such a record goes to the dead-letter topic after {@link
   * #PERMANENT_ATTEMPTS} tries. Everything else is transient and retried until it passes: the
   * server away, a deadlock, a timeout, and syntax or access rule violations (42: a grant revoked,
   * a renamed column), which are the environment's, not the message's.
   */
  public static boolean isPermanent(Throwable e) {
    return ErrorKinds.isPermanent(e);
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

  /** Stops polling, lets the batch in hand finish and commit, and leaves the group. */
  @Override
  public synchronized void close() {
    owner.close();
    if (workers != null) {
      workers.shutdownNow();
    }
    if (deadLetters != null) {
      deadLetters.close();
    }
  }
}
