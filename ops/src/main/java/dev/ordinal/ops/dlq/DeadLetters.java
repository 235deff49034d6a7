package dev.ordinal.ops.dlq;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.MessagingException;
import dev.ordinal.messaging.inbox.InboxConsumerConfig;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.ops.internal.KafkaCalls;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jooq.DSLContext;

/**
 * Reads a dead-letter topic and re-drives its records: produces each back to the topic it was read
 * from, with its original key, payload and headers minus the {@code dlq-*} ones. The message id
 * travels unchanged, so an inbox that applied the message meanwhile drops it as a duplicate, and a
 * re-drive done twice applies nothing twice.
 *
 * <p>What the caller can rely on:
 *
 * <ul>
 *   <li>Reading never changes the topic or any consumer group (no group, no commits): it reads
 *       every partition from its start to the end it had when the read began.
 *   <li>A re-drive goes to the original partition (from {@code dlq-original-partition}), in
 *       dead-letter order, with an idempotent producer ({@code acks=all}), and returns only once
 *       Kafka acknowledged every record. Each acknowledged record is then recorded in {@code
 *       dlq_redrive_log} (who, when, from where, to where), in one transaction.
 *   <li>A dead letter without a message id, or without its original topic, is not re-driven (the
 *       inbox could not tell it from a new message, or there is nowhere to send it): it is returned
 *       as skipped, with the reason; so is one that was discarded.
 *   <li>A re-drive is a dry run unless asked to execute: the same result, nothing produced or
 *       recorded. The loop guard refuses a letter re-driven its limit of times already.
 * </ul>
 */
public final class DeadLetters {
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  /** The shortest timeout: Kafka's producer needs its request timeout within the delivery one. */
  public static final Duration MIN_TIMEOUT = Duration.ofSeconds(2);

  /** The loop guard's limit when none is given: a letter re-driven 3 times is refused. */
  public static final int DEFAULT_MAX_REDRIVES = 3;

  /** An executed re-drive tells its progress every this many records Kafka acknowledged... */
  public static final int PROGRESS_EVERY = 1_000;

  /** ...and when this much time passed on its clock since it last did. */
  public static final Duration PROGRESS_INTERVAL = Duration.ofSeconds(5);

  private final KafkaClients clients;
  private final RedriveLog log;
  private final Clock clock;
  private final Duration timeout;

  /**
   * @param bootstrapServers the Kafka cluster, with no client properties of the user's
   * @param log a context on the schema holding {@code dlq_redrive_log} ({@link
   *     dev.ordinal.ops.replay.ReplayLog#migrate})
   * @param clock the re-drive's {@code redriven_at}
   * @param timeout the longest a read or a re-drive may wait for Kafka
   */
  public DeadLetters(String bootstrapServers, DSLContext log, Clock clock, Duration timeout) {
    this(KafkaClients.of(bootstrapServers), log, clock, timeout);
  }

  /**
   * @param clients the Kafka cluster and the user's client properties: the admin client, the reader
   *     and the re-drive producer are made by it
   * @param log a context on the schema holding {@code dlq_redrive_log} ({@link
   *     dev.ordinal.ops.replay.ReplayLog#migrate})
   * @param clock the re-drive's {@code redriven_at}
   * @param timeout the longest a read or a re-drive may wait for Kafka
   */
  public DeadLetters(KafkaClients clients, DSLContext log, Clock clock, Duration timeout) {
    this.clients = Objects.requireNonNull(clients, "clients");
    this.log = new RedriveLog(Objects.requireNonNull(log, "log"));
    this.clock = Objects.requireNonNull(clock, "clock");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    if (timeout.compareTo(MIN_TIMEOUT) < 0) {
      throw new ConfigurationException("timeout must be at least " + MIN_TIMEOUT + ": " + timeout);
    }
  }

  /**
   * The dead letters of {@code dlqTopic} that {@code filter} matches, by partition and offset.
   *
   * @throws ConfigurationException when {@code dlqTopic} is not named {@code <topic>.dlq}
   * @throws dev.ordinal.messaging.RefusedException when it does not exist
   * @throws MessagingException when Kafka does not answer in time
   */
  public List<DeadLetter> read(String dlqTopic, DeadLetterFilter filter) {
    checkName(dlqTopic);
    List<TopicPartition> tps;
    try (Admin admin = admin()) {
      tps =
          KafkaCalls.partitionsOf(admin, dlqTopic, timeout).stream()
              .map(p -> new TopicPartition(dlqTopic, p))
              .toList();
    }
    List<DeadLetter> found = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = reader()) {
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Map<TopicPartition, Long> end = consumer.endOffsets(tps, timeout);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (tps.stream().anyMatch(tp -> consumer.position(tp, timeout) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new MessagingException(
              "Could not read "
                  + dlqTopic
                  + " to its end within "
                  + timeout.toSeconds()
                  + " s; check that the broker runs, or filter less.");
        }
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) {
            DeadLetter d = deadLetter(r);
            if (filter.test(d)) {
              found.add(d);
            }
          }
        }
      }
    } catch (org.apache.kafka.common.errors.TimeoutException e) {
      throw KafkaCalls.noAnswer(timeout, "reading " + dlqTopic, e);
    }
    found.sort(
        Comparator.comparingInt(DeadLetter::partition).thenComparingLong(DeadLetter::offset));
    return found;
  }

  /**
   * How many times each dead letter of {@code dlqTopic} has been re-driven; absent means never.
   * Empty when the schema has no {@code dlq_redrive_log} yet (nothing was ever re-driven there).
   */
  public Map<DeadLetter.Position, Integer> redriveCounts(String dlqTopic) {
    return log.redriveCounts(dlqTopic);
  }

  /**
   * The dead letters {@code filter} matches that were not discarded, with their re-drive counts;
   * reads only.
   */
  public DeadLetterList list(String dlqTopic, DeadLetterFilter filter) {
    List<DeadLetter> matched = read(dlqTopic, filter);
    Map<DeadLetter.Position, Integer> discarded = log.discarded(dlqTopic);
    List<DeadLetter> kept =
        matched.stream().filter(d -> !discarded.containsKey(d.position())).toList();
    return new DeadLetterList(
        dlqTopic, filter, kept, redriveCounts(dlqTopic), matched.size() - kept.size());
  }

  /**
   * Marks the dead letters {@code filter} matches as handled without re-driving them: one {@code
   * dlq_redrive_log} row each with action {@code discard}, in one transaction, when {@code
   * execute}; a dry run otherwise. Letters discarded before are left out. Later re-drives and lists
   * skip a discarded letter.
   */
  public DiscardResult discard(
      String dlqTopic, DeadLetterFilter filter, String discardedBy, boolean execute) {
    Objects.requireNonNull(discardedBy, "discardedBy");
    DeadLetterList list = list(dlqTopic, filter);
    if (execute) {
      log.recordDiscards(dlqTopic, list.letters(), discardedBy, Instant.now(clock));
    }
    return new DiscardResult(execute, list.letters(), list.discarded());
  }

  /** {@link #redrive(String, DeadLetterFilter, String, int, boolean)}, executed, limit 3. */
  public RedriveResult redrive(String dlqTopic, DeadLetterFilter filter, String redrivenBy) {
    return redrive(dlqTopic, filter, redrivenBy, DEFAULT_MAX_REDRIVES, true);
  }

  /**
   * {@link #redrive(String, DeadLetterFilter, String, int, boolean, Consumer)} without progress
   * lines.
   */
  public RedriveResult redrive(
      String dlqTopic,
      DeadLetterFilter filter,
      String redrivenBy,
      int maxRedrives,
      boolean execute) {
    return redrive(dlqTopic, filter, redrivenBy, maxRedrives, execute, line -> {});
  }

  /**
   * Produces the dead letters of {@code dlqTopic} that {@code filter} matches back to their
   * original topics, and records each in {@code dlq_redrive_log}; without {@code execute}, a dry
   * run: the same result with nothing produced or recorded. Each re-driven record carries {@value
   * DeadLetter#REDRIVE_COUNT}: the times the message was re-driven before plus one. Loop guard: a
   * letter re-driven {@code maxRedrives} times already (its count header plus its re-drives in the
   * log) is refused. Discarded letters are skipped.
   *
   * @param redrivenBy who asks (the operating-system user), kept in the log
   * @param progress told, while an executed re-drive waits for Kafka's acknowledgements, {@code
   *     redriven 1,000 of 5,000 dead letters of <dlqTopic>}: every {@value #PROGRESS_EVERY} records
   *     acknowledged, when {@link #PROGRESS_INTERVAL} passed on the clock since the last line, and
   *     once all are; never on a dry run
   * @throws dev.ordinal.messaging.RefusedException when the dead-letter topic or an original topic
   *     does not exist; nothing was produced
   * @throws MessagingException when Kafka did not acknowledge some records in time: those it did
   *     acknowledge are recorded, and running the same re-drive again is safe
   */
  public RedriveResult redrive(
      String dlqTopic,
      DeadLetterFilter filter,
      String redrivenBy,
      int maxRedrives,
      boolean execute,
      Consumer<String> progress) {
    Objects.requireNonNull(redrivenBy, "redrivenBy");
    Objects.requireNonNull(progress, "progress");
    if (maxRedrives < 1) {
      throw new ConfigurationException(
          "--max-redrives must be at least 1, not " + maxRedrives + ".");
    }
    List<DeadLetter> matched = read(dlqTopic, filter);
    Map<DeadLetter.Position, Integer> earlier = redriveCounts(dlqTopic);
    Sorted sorted = sort(matched, earlier, log.discarded(dlqTopic), maxRedrives);
    if (sorted.todo().isEmpty()) {
      return new RedriveResult(execute, maxRedrives, List.of(), sorted.refused(), sorted.skipped());
    }
    List<RedriveResult.Redriven> planned = plan(sorted.todo(), earlier);
    if (!execute) {
      return new RedriveResult(false, maxRedrives, planned, sorted.refused(), sorted.skipped());
    }
    List<RedriveResult.Redriven> redriven = new ArrayList<>();
    Exception failure = produce(dlqTopic, planned, redriven, progress);
    log.recordRedrives(dlqTopic, redriven, redrivenBy, Instant.now(clock));
    if (failure != null) {
      Throwable cause = failure instanceof ExecutionException ? failure.getCause() : failure;
      throw new MessagingException(
          "Re-drove "
              + redriven.size()
              + " of "
              + planned.size()
              + " dead letters of "
              + dlqTopic
              + "; Kafka did not acknowledge the others ("
              + cause
              + "); run the same re-drive again, the inbox drops what arrives twice.",
          cause);
    }
    return new RedriveResult(true, maxRedrives, redriven, sorted.refused(), sorted.skipped());
  }

  /** The matched letters, sorted: to re-drive, refused by the loop guard, skipped. */
  private record Sorted(
      List<DeadLetter> todo,
      List<RedriveResult.Refused> refused,
      List<RedriveResult.Skipped> skipped) {}

  private static Sorted sort(
      List<DeadLetter> matched,
      Map<DeadLetter.Position, Integer> earlier,
      Map<DeadLetter.Position, Integer> discarded,
      int maxRedrives) {
    Sorted sorted = new Sorted(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
    for (DeadLetter d : matched) {
      int redrives = d.redriveCount() + earlier.getOrDefault(d.position(), 0);
      if (discarded.containsKey(d.position())) {
        sorted.skipped().add(skip(d, "discarded: dlq discard marked it as handled"));
      } else if (d.originalTopic().isEmpty()) {
        sorted
            .skipped()
            .add(skip(d, "no dlq-original-topic header: not a dead letter, nowhere to send it"));
      } else if (d.messageId().isEmpty()) {
        sorted
            .skipped()
            .add(
                skip(
                    d,
                    "no message-id header: the inbox could not recognise it, and the consumer"
                        + " would dead-letter it again"));
      } else if (redrives >= maxRedrives) {
        sorted
            .refused()
            .add(
                new RedriveResult.Refused(
                    d,
                    redrives,
                    "re-driven "
                        + redrives
                        + " time(s) already, the limit: discard it (dlq discard), or raise"
                        + " --max-redrives once the consumer is fixed."));
      } else {
        sorted.todo().add(d);
      }
    }
    return sorted;
  }

  private static RedriveResult.Skipped skip(DeadLetter d, String reason) {
    return new RedriveResult.Skipped(d, reason);
  }

  /** Where each letter goes: its original partition when the topic still has it, else -1. */
  private List<RedriveResult.Redriven> plan(
      List<DeadLetter> todo, Map<DeadLetter.Position, Integer> earlier) {
    Map<String, List<Integer>> partitions = new HashMap<>();
    try (Admin admin = admin()) {
      for (DeadLetter d : todo) {
        partitions.computeIfAbsent(
            d.originalTopic().orElseThrow(), t -> KafkaCalls.partitionsOf(admin, t, timeout));
      }
    }
    List<RedriveResult.Redriven> planned = new ArrayList<>();
    for (DeadLetter d : todo) {
      String topic = d.originalTopic().orElseThrow();
      boolean kept =
          d.originalPartition().isPresent()
              && partitions.get(topic).contains(d.originalPartition().getAsInt());
      planned.add(
          new RedriveResult.Redriven(
              d,
              topic,
              kept ? d.originalPartition().getAsInt() : -1,
              -1,
              d.redriveCount() + earlier.getOrDefault(d.position(), 0)));
    }
    return planned;
  }

  /**
   * Sends {@code planned} and adds each record Kafka acknowledged to {@code redriven}, in order,
   * telling {@code progress} as {@link #redrive(String, DeadLetterFilter, String, int, boolean,
   * Consumer)} says; the first failure, or null.
   */
  private Exception produce(
      String dlqTopic,
      List<RedriveResult.Redriven> planned,
      List<RedriveResult.Redriven> redriven,
      Consumer<String> progress) {
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    Exception failure = null;
    try (KafkaProducer<String, String> producer = producer()) {
      for (RedriveResult.Redriven p : planned) {
        RecordHeaders headers = new RecordHeaders(p.source().originalHeaders());
        headers.add(
            DeadLetter.REDRIVE_COUNT, Integer.toString(p.count()).getBytes(StandardCharsets.UTF_8));
        try {
          sent.add(
              producer.send(
                  new ProducerRecord<>(
                      p.topic(),
                      p.partition() < 0 ? null : p.partition(),
                      p.source().key(),
                      p.source().payload(),
                      headers)));
        } catch (KafkaException e) {
          // the producer itself gave up (no metadata in time): later sends would too
          failure = e;
          break;
        }
      }
      // delivery.timeout.ms bounds each send, so every future completes within it
      Duration bound = timeout.plus(Duration.ofSeconds(10));
      Instant told = clock.instant();
      for (int i = 0; i < sent.size(); i++) {
        try {
          RecordMetadata m = sent.get(i).get(bound.toMillis(), TimeUnit.MILLISECONDS);
          RedriveResult.Redriven p = planned.get(i);
          redriven.add(
              new RedriveResult.Redriven(
                  p.source(), m.topic(), m.partition(), m.offset(), p.earlierRedrives()));
          Instant now = clock.instant();
          int n = redriven.size();
          if (n % PROGRESS_EVERY == 0
              || n == planned.size()
              || !now.isBefore(told.plus(PROGRESS_INTERVAL))) {
            progress.accept(progressLine(n, planned.size(), dlqTopic));
            told = now;
          }
        } catch (ExecutionException | TimeoutException e) {
          failure = failure == null ? e : failure;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          failure = e;
          break;
        }
      }
    }
    return failure;
  }

  /** {@code redriven 1,000 of 5,000 dead letters of <dlqTopic>}. */
  private static String progressLine(int done, int total, String dlqTopic) {
    return String.format(
        Locale.ROOT, "redriven %,d of %,d dead letters of %s", done, total, dlqTopic);
  }

  /** Ordinal's {@code <topic>.dlq}, or Spring Kafka's {@code <topic>.DLT} and {@code -dlt}. */
  private static void checkName(String dlqTopic) {
    if (dlqTopic == null
        || !(dlqTopic.endsWith(InboxConsumerConfig.deadLetterTopic(""))
            || dlqTopic.endsWith(".DLT")
            || dlqTopic.endsWith("-dlt"))) {
      throw new ConfigurationException(
          "'"
              + dlqTopic
              + "' is not a dead-letter topic: name one as <topic>"
              + InboxConsumerConfig.deadLetterTopic("")
              + " (or Spring Kafka's <topic>.DLT or <topic>-dlt).");
    }
  }

  private static DeadLetter deadLetter(ConsumerRecord<String, String> r) {
    return new DeadLetter(
        r.topic(),
        r.partition(),
        r.offset(),
        Instant.ofEpochMilli(r.timestamp()),
        r.key(),
        r.value(),
        List.of(r.headers().toArray()));
  }

  private Admin admin() {
    int ms = (int) timeout.toMillis();
    return clients.admin(
        "dlq",
        Map.of(
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, ms,
            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, ms));
  }

  private KafkaConsumer<String, String> reader() {
    return clients.consumer(
        "dlq-reader",
        Map.of(
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            false,
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            "earliest"),
        new StringDeserializer(),
        new StringDeserializer());
  }

  private KafkaProducer<String, String> producer() {
    return clients.producer(
        "dlq-redrive",
        Map.of(
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
            true,
            ProducerConfig.ACKS_CONFIG,
            "all",
            ProducerConfig.LINGER_MS_CONFIG,
            0,
            ProducerConfig.MAX_BLOCK_MS_CONFIG,
            (int) timeout.toMillis(),
            ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
            (int) timeout.dividedBy(2).toMillis(),
            ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
            (int) timeout.toMillis()),
        new StringSerializer(),
        new StringSerializer());
  }
}
