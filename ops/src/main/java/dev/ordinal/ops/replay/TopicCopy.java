package dev.ordinal.ops.replay;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.MessagingException;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.messaging.kafka.KafkaRefusals;
import dev.ordinal.ops.internal.KafkaCalls;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;

/**
 * {@code ./ordinal topics copy}: the records of a topic whose timestamps fall in {@code [from,
 * to)}, copied to another topic into the same partition, with their key, value, headers (the
 * message id among them) and timestamp as they are, so consumers of the copy apply each once and a
 * replay of it can be judged against the original. Planned first (per partition the offsets the
 * range covers, from {@code offsetsForTimes}, read with {@code read_committed}); executed, each
 * source partition's range is recorded in {@code topic_copy_log} beside the replay log.
 */
public final class TopicCopy {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final Duration POLL = Duration.ofMillis(500);

  /** Offsets {@code [from, to)} of {@code partition}. */
  public record Range(int partition, long from, long to) {
    public long records() {
      return to - from;
    }
  }

  /** What a copy moves: per source partition, the offsets in the time range. */
  public record Plan(String source, String target, Instant from, Instant to, List<Range> ranges) {
    /** Offsets in the range (committed records, and the markers of transactions among them). */
    public long offsets() {
      return ranges.stream().mapToLong(Range::records).sum();
    }

    /** The plan as lines of text, saying what {@code execute} does or would do. */
    public String describe(boolean execute) {
      StringBuilder b =
          new StringBuilder(
              String.format(
                  "%s %d offsets of %s [%s, %s) to %s:%n",
                  execute ? "Copying" : "Dry run: would copy",
                  offsets(),
                  source,
                  from,
                  to,
                  target));
      ranges.forEach(
          r ->
              b.append(String.format("  partition %d: %d..%d%n", r.partition(), r.from(), r.to())));
      return execute
          ? b.toString()
          : b.append("Nothing was copied or recorded; add --execute.\n").toString();
    }
  }

  /** An executed copy: its id in the log and the records written. */
  public record Copied(long id, Plan plan, long records) {}

  private final KafkaClients kafka;

  public TopicCopy(KafkaClients kafka) {
    this.kafka = kafka;
  }

  /**
   * The plan of copying {@code source}'s records of {@code [from, to)} to {@code target}.
   *
   * @throws ConfigurationException for an empty range, a topic copied onto itself, a topic that
   *     does not exist, or a target with fewer partitions than the source
   */
  public Plan plan(String source, String target, Instant from, Instant to) {
    if (!from.isBefore(to)) {
      throw new ConfigurationException(
          "--from-datetime " + from + " must be before --to-datetime " + to);
    }
    if (source.equals(target)) {
      throw new ConfigurationException("--to-topic must name another topic than " + source);
    }
    try (Admin admin = kafka.admin("topics-copy", Map.of());
        KafkaConsumer<byte[], byte[]> consumer = consumer()) {
      int partitions = partitions(admin, source, "");
      int targetPartitions =
          partitions(admin, target, " (create it first: topics copy makes none)");
      if (targetPartitions < partitions) {
        throw new ConfigurationException(
            "--to-topic "
                + target
                + " has "
                + targetPartitions
                + " partitions, fewer than the "
                + partitions
                + " of "
                + source
                + ": each record is copied into its own partition");
      }
      List<TopicPartition> tps = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        tps.add(new TopicPartition(source, p));
      }
      Map<TopicPartition, Long> end = consumer.endOffsets(tps, TIMEOUT);
      Map<TopicPartition, OffsetAndTimestamp> starts =
          consumer.offsetsForTimes(at(tps, from), TIMEOUT);
      Map<TopicPartition, OffsetAndTimestamp> ends = consumer.offsetsForTimes(at(tps, to), TIMEOUT);
      List<Range> ranges = new ArrayList<>();
      for (TopicPartition tp : tps) {
        long start = starts.get(tp) == null ? end.get(tp) : starts.get(tp).offset();
        long stop = ends.get(tp) == null ? end.get(tp) : ends.get(tp).offset();
        ranges.add(new Range(tp.partition(), start, Math.max(start, stop)));
      }
      return new Plan(source, target, from, to, List.copyOf(ranges));
    }
  }

  /**
   * Copies what {@code plan} covers and records it in {@code log} (a schema holding the replay
   * log), each partition's range in one row; {@code progress} hears of each partition copied, once
   * Kafka acknowledged its records.
   *
   * @throws ConfigurationException when the user may not WRITE on the target, in the one sentence
   *     of {@link KafkaRefusals#notAuthorized(KafkaClients, String, String,
   *     AuthorizationException)}
   * @throws MessagingException when Kafka did not acknowledge a record for another reason (its
   *     cause); in both cases nothing is recorded, and the partitions told as copied before hold
   *     their copies
   */
  public Copied execute(Plan plan, DSLContext log, String user, Consumer<String> progress) {
    long records = 0;
    AtomicReference<Exception> refused = new AtomicReference<>();
    try (KafkaConsumer<byte[], byte[]> consumer = consumer();
        KafkaProducer<byte[], byte[]> producer =
            kafka.producer(
                "topics-copy", Map.of(), new ByteArraySerializer(), new ByteArraySerializer())) {
      for (Range r : plan.ranges()) {
        long n =
            copy(
                consumer,
                producer,
                plan,
                r,
                (metadata, e) -> {
                  if (e != null) {
                    refused.compareAndSet(null, e); // the first refusal says why
                  }
                });
        producer.flush();
        if (refused.get() instanceof AuthorizationException e) {
          // a user that may WRITE no topic at all is refused the idempotent producer's id as a
          // cluster authorization (KIP-679): what it lacks is still WRITE on the target
          throw KafkaRefusals.notAuthorized(kafka, "WRITE", "topic " + plan.target(), e);
        }
        if (refused.get() != null) {
          throw new MessagingException(
              "Kafka did not acknowledge the copy of "
                  + plan.source()
                  + " partition "
                  + r.partition()
                  + " to "
                  + plan.target()
                  + " ("
                  + refused.get()
                  + "); nothing was recorded in topic_copy_log.",
              refused.get());
        }
        records += n;
        progress.accept(
            String.format(
                "copied %s partition %d offsets %d..%d: %d records",
                plan.source(), r.partition(), r.from(), r.to(), n));
      }
    }
    long copied = records;
    long id =
        log.transactionResult(
            c -> {
              DSLContext tx = c.dsl();
              long next = tx.nextval(DSL.sequence(DSL.name("topic_copy_id_seq"), Long.class));
              for (Range r : plan.ranges()) {
                tx.insertInto(DSL.table(DSL.name("topic_copy_log")))
                    .set(DSL.field(DSL.name("id")), next)
                    .set(DSL.field(DSL.name("source_topic")), plan.source())
                    .set(DSL.field(DSL.name("partition_no")), r.partition())
                    .set(DSL.field(DSL.name("from_offset")), r.from())
                    .set(DSL.field(DSL.name("to_offset")), r.to())
                    .set(DSL.field(DSL.name("target_topic")), plan.target())
                    .set(DSL.field(DSL.name("from_time")), plan.from().atOffset(ZoneOffset.UTC))
                    .set(DSL.field(DSL.name("to_time")), plan.to().atOffset(ZoneOffset.UTC))
                    .set(DSL.field(DSL.name("copied_by")), user)
                    .set(DSL.field(DSL.name("copied_at")), Instant.now().atOffset(ZoneOffset.UTC))
                    .execute();
              }
              return next;
            });
    return new Copied(id, plan, copied);
  }

  /** The records of {@code r}, sent to the same partition of the target; how many. */
  private static long copy(
      KafkaConsumer<byte[], byte[]> consumer,
      KafkaProducer<byte[], byte[]> producer,
      Plan plan,
      Range r,
      Callback acked) {
    if (r.records() == 0) {
      return 0;
    }
    TopicPartition tp = new TopicPartition(plan.source(), r.partition());
    consumer.assign(List.of(tp));
    consumer.seek(tp, r.from());
    long sent = 0;
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (consumer.position(tp) < r.to()) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "Could not read " + tp + " up to offset " + r.to() + " within " + TIMEOUT);
      }
      for (ConsumerRecord<byte[], byte[]> rec : consumer.poll(POLL)) {
        if (rec.offset() >= r.to()) {
          break;
        }
        if (rec.timestamp() < plan.from().toEpochMilli()
            || rec.timestamp() >= plan.to().toEpochMilli()) {
          continue; // in the offset range, out of the time range: a producer's own timestamp
        }
        producer.send(
            new ProducerRecord<>(
                plan.target(),
                r.partition(),
                rec.timestamp(),
                rec.key(),
                rec.value(),
                rec.headers()),
            acked);
        sent++;
      }
    }
    return sent;
  }

  private KafkaConsumer<byte[], byte[]> consumer() {
    return kafka.consumer(
        "topics-copy",
        Map.of("enable.auto.commit", "false"),
        new ByteArrayDeserializer(),
        new ByteArrayDeserializer());
  }

  private static Map<TopicPartition, Long> at(List<TopicPartition> tps, Instant t) {
    Map<TopicPartition, Long> out = new HashMap<>();
    tps.forEach(tp -> out.put(tp, t.toEpochMilli()));
    return out;
  }

  /** Its partition count; a refusal to describe it names it (for the sentence on it). */
  private static int partitions(Admin admin, String topic, String hint) {
    try {
      TopicDescription d =
          KafkaCalls.awaitOn(
                  admin.describeTopics(List.of(topic)).allTopicNames(),
                  TIMEOUT,
                  "describing " + topic,
                  null,
                  topic)
              .get(topic);
      return d.partitions().size();
    } catch (UnknownTopicOrPartitionException e) {
      throw new ConfigurationException("There is no topic " + topic + hint);
    }
  }
}
