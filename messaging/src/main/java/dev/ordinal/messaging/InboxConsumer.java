package dev.ordinal.messaging;

import static dev.ordinal.messaging.db.Tables.INBOX;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
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
 * then runs the {@link MessageHandler}. The Kafka offset is committed only after that transaction
 * committed. A unique violation on the inbox's primary key ({@code inbox_pkey}, SQLSTATE 23505)
 * means the message was applied before: it is skipped, counted and its offset committed. Any other
 * failure rolls back, the partition is rewound to the failed record and retried with backoff.
 *
 * <p>Metrics: {@code ordinal.inbox.messages{consumer, outcome}} with outcome {@code applied},
 * {@code duplicate}, {@code poison} and {@code retried}.
 */
public final class InboxConsumer implements AutoCloseable {
  /** The inbox's primary key: a violation of it, and only it, means "duplicate". */
  public static final String INBOX_CONSTRAINT = "inbox_pkey";

  private static final Logger log = LoggerFactory.getLogger(InboxConsumer.class);
  private static final String UNIQUE_VIOLATION = "23505";

  private final InboxConsumerConfig config;
  private final DSLContext dsl;
  private final MessageHandler handler;
  private final Clock clock;
  private final Counter applied;
  private final Counter duplicates;
  private final Counter poison;
  private final Counter retried;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final CountDownLatch assigned = new CountDownLatch(1);
  private volatile boolean running = true;
  private volatile KafkaConsumer<String, String> consumer;
  private Thread thread;

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
    this.applied = counter(registry, "applied");
    this.duplicates = counter(registry, "duplicate");
    this.poison = counter(registry, "poison");
    this.retried = counter(registry, "retried");
  }

  private Counter counter(MeterRegistry registry, String outcome) {
    return Counter.builder("ordinal.inbox.messages")
        .description("Messages seen by an inbox consumer, by outcome")
        .tag("consumer", config.consumerName())
        .tag("outcome", outcome)
        .register(registry);
  }

  /** Starts the poll loop on its own thread. */
  public synchronized InboxConsumer start() {
    if (thread != null) {
      throw new IllegalStateException("already started");
    }
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    props.put(ConsumerConfig.GROUP_ID_CONFIG, config.groupId());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, config.consumerName() + "-" + config.groupId());
    props.putAll(config.kafka());
    consumer = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    thread = new Thread(this::loop, "inbox-" + config.consumerName());
    thread.start();
    return this;
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

  public long poison() {
    return (long) poison.count();
  }

  public long retried() {
    return (long) retried.count();
  }

  private void loop() {
    try {
      consumer.subscribe(
          config.topics(),
          new org.apache.kafka.clients.consumer.ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(java.util.Collection<TopicPartition> partitions) {
              // offsets are committed after every batch, so nothing is pending here
            }

            @Override
            public void onPartitionsAssigned(java.util.Collection<TopicPartition> partitions) {
              assigned.countDown();
            }
          });
      Map<TopicPartition, Integer> failures = new HashMap<>();
      while (running) {
        ConsumerRecords<String, String> records = consumer.poll(config.pollTimeout());
        Duration backoff = Duration.ZERO;
        for (TopicPartition tp : records.partitions()) {
          Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();
          for (ConsumerRecord<String, String> record : records.records(tp)) {
            if (!running) {
              break;
            }
            if (!apply(record)) {
              int attempt = failures.merge(tp, 1, Integer::sum);
              consumer.seek(tp, record.offset());
              backoff = max(backoff, backoff(attempt));
              break;
            }
            failures.remove(tp);
            done.put(tp, new OffsetAndMetadata(record.offset() + 1));
          }
          if (!done.isEmpty()) {
            consumer.commitSync(done);
          }
        }
        if (!backoff.isZero()) {
          stopped.await(backoff.toMillis(), TimeUnit.MILLISECONDS);
        }
      }
    } catch (WakeupException e) {
      if (running) {
        throw e;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      log.error("Inbox consumer {} stopped on an unexpected error", config.consumerName(), e);
      throw e;
    } finally {
      consumer.close(Duration.ofSeconds(5));
    }
  }

  /** Returns true when the record is done with (applied, duplicate or poison). */
  private boolean apply(ConsumerRecord<String, String> record) {
    Envelope message;
    try {
      message = Envelope.of(record);
    } catch (PoisonMessageException e) {
      poison.increment();
      log.warn("Skipping poison record: {}", e.getMessage());
      return true;
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
      return true;
    } catch (DataAccessException e) {
      if (isInboxDuplicate(e)) {
        duplicates.increment();
        log.debug("Message {} already applied by {}", message.messageId(), config.consumerName());
        return true;
      }
      return retry(message, e);
    } catch (PoisonMessageException e) {
      poison.increment();
      log.warn("Skipping poison message {}: {}", message.messageId(), e.getMessage());
      return true;
    } catch (RuntimeException e) {
      return retry(message, e);
    }
  }

  private boolean retry(Envelope message, RuntimeException e) {
    retried.increment();
    log.warn(
        "Message {} ({}-{}@{}) failed and will be retried: {}",
        message.messageId(),
        message.topic(),
        message.partition(),
        message.offset(),
        e.toString());
    return false;
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

  /** Stops polling, lets the record in hand finish, commits and leaves the group. */
  @Override
  public void close() {
    running = false;
    stopped.countDown();
    KafkaConsumer<String, String> c = consumer;
    if (c != null) {
      c.wakeup();
    }
    Thread t = thread;
    if (t != null) {
      try {
        t.join(TimeUnit.SECONDS.toMillis(30));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  List<String> topics() {
    return config.topics();
  }
}
