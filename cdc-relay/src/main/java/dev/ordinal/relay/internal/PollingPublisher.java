package dev.ordinal.relay.internal;

import dev.ordinal.messaging.kafka.HeaderFormat;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.kafka.Topics;
import io.opentelemetry.api.trace.Span;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Sends claimed outbox rows to Kafka and waits, within a bound, for the acknowledgements, keeping
 * each aggregate's order: its rows go out one after the other, the next only once Kafka has
 * acknowledged the one before, so a failed send is never overtaken by a younger row of its
 * aggregate (Kafka's idempotent producer may still write a later batch of a partition after an
 * earlier one failed). Different aggregates are sent side by side: a batch takes as many round
 * trips as its longest run of one aggregate. Reports which rows Kafka acknowledged (the caller
 * marks only those) and which are done with (the caller may release them).
 */
public final class PollingPublisher {
  /**
   * What became of one batch.
   *
   * @param acknowledged the acknowledged rows' ids, in send order
   * @param failed how many rows were not acknowledged
   * @param unsent the ids of rows not acknowledged whose send is over (it failed, or never
   *     started): no send of theirs is still under way, so another instance may take them now. A
   *     row whose acknowledgement was not awaited to the end is in neither list
   */
  public record Outcome(
      List<UUID> acknowledged, int failed, Throwable firstError, List<UUID> unsent) {}

  private final Producer<byte[], byte[]> producer;
  private final String topicPrefix;
  private final Clock clock;
  private final Consumer<Duration> lag;
  private final Topics.Known topics;
  private HeaderFormat headerFormat = HeaderFormat.ORDINAL;
  private PublishSpan spans = PublishSpan.ofProcess();
  private String source;

  /** Without topic creation: for tests of the mapping with a mock producer. */
  public PollingPublisher(
      Producer<byte[], byte[]> producer, String topicPrefix, Clock clock, Consumer<Duration> lag) {
    this(producer, topicPrefix, clock, lag, null);
  }

  /**
   * @param lag receives {@code occurred_at → acknowledgement} of each acknowledged row, measured
   *     with {@code clock}
   */
  public PollingPublisher(
      Producer<byte[], byte[]> producer,
      String topicPrefix,
      Clock clock,
      Consumer<Duration> lag,
      Topics.Known topics) {
    this.topics = topics;
    this.producer = producer;
    this.topicPrefix = topicPrefix + ".";
    this.clock = clock;
    this.lag = lag;
  }

  /**
   * Writes each record's headers in {@code format} (Ordinal's by default), with {@code source} as
   * CloudEvents' {@code ce_source}; call before the first send.
   */
  public PollingPublisher headers(HeaderFormat format, String source) {
    this.headerFormat = format;
    this.source = source;
    return this;
  }

  /** Makes each row's {@link PublishSpan} with {@code spans}; call before the first send. */
  PollingPublisher spans(PublishSpan spans) {
    this.spans = spans;
    return this;
  }

  /**
   * Sends {@code rows} (in {@code occurred_at} order) and waits for their acknowledgements, in
   * rounds: each round sends the oldest row not yet sent of every aggregate whose rows so far were
   * all acknowledged, then waits for them. Once a row of an aggregate fails, the aggregate's later
   * rows are not sent. Deadlines are {@link System#nanoTime()} values: no send is started after
   * {@code sendBy}, and no acknowledgement is waited for after {@code ackBy}. A row not sent in
   * time, whose send fails, or that is not acknowledged in time counts as failed. When {@code send}
   * itself throws (no metadata, full buffer, producer closed), nothing more is sent: the rest would
   * fail the same way.
   *
   * @throws InterruptedException when interrupted while waiting; nothing is reported then, and the
   *     caller marks nothing
   */
  public Outcome publish(List<PollingOutbox.Row> rows, long sendBy, long ackBy)
      throws InterruptedException {
    Map<List<String>, Deque<PollingOutbox.Row>> byAggregate = new LinkedHashMap<>();
    for (PollingOutbox.Row row : rows) {
      byAggregate
          .computeIfAbsent(List.of(row.aggregateType(), row.aggregateId()), k -> new ArrayDeque<>())
          .add(row);
    }
    List<UUID> acknowledged = new ArrayList<>(rows.size());
    Set<UUID> inDoubt = new HashSet<>();
    Throwable firstError = null;
    boolean stop = false;
    while (!byAggregate.isEmpty() && !stop) {
      List<PollingOutbox.Row> round = new ArrayList<>(byAggregate.size());
      List<Future<RecordMetadata>> sends = new ArrayList<>(byAggregate.size());
      for (Deque<PollingOutbox.Row> queue : byAggregate.values()) {
        if (System.nanoTime() - sendBy > 0) {
          firstError = new TimeoutException("the batch's send window closed; the rest waits");
          stop = true;
          break;
        }
        try {
          sends.add(send(queue.peek()));
          round.add(queue.poll());
        } catch (KafkaException e) {
          firstError = e;
          stop = true;
          break;
        }
      }
      for (int i = 0; i < sends.size(); i++) {
        PollingOutbox.Row row = round.get(i);
        List<String> aggregate = List.of(row.aggregateType(), row.aggregateId());
        try {
          sends.get(i).get(Math.max(0, ackBy - System.nanoTime()), TimeUnit.NANOSECONDS);
          acknowledged.add(row.id());
          if (byAggregate.get(aggregate).isEmpty()) {
            byAggregate.remove(aggregate);
          }
        } catch (ExecutionException e) {
          firstError = firstError == null ? e.getCause() : firstError;
          byAggregate.remove(aggregate);
        } catch (TimeoutException e) {
          // the producer may still deliver it: it keeps its lease, and so does its aggregate
          firstError = firstError == null ? e : firstError;
          inDoubt.add(row.id());
          byAggregate.remove(aggregate);
        }
      }
    }
    Set<UUID> done = new HashSet<>(acknowledged);
    List<UUID> unsent =
        rows.stream()
            .map(PollingOutbox.Row::id)
            .filter(id -> !done.contains(id) && !inDoubt.contains(id))
            .toList();
    return new Outcome(
        List.copyOf(acknowledged), rows.size() - acknowledged.size(), firstError, unsent);
  }

  private Future<RecordMetadata> send(PollingOutbox.Row row) {
    ProducerRecord<byte[], byte[]> record = toKafka(row);
    if (topics != null) {
      topics.ensure(record.topic());
    }
    Span span = spans.start(record.topic(), row.traceparent(), row.tracestate());
    try {
      return producer.send(
          record,
          PublishSpan.ending(
              span,
              (metadata, error) -> {
                if (error == null) {
                  lag.accept(Duration.between(row.occurredAt().toInstant(), clock.instant()));
                }
              }));
    } catch (RuntimeException e) {
      PublishSpan.failed(span, e);
      throw e;
    }
  }

  /**
   * The record of the message contract: key = aggregate id, value = payload, string headers in
   * {@link #headers}' format.
   */
  public ProducerRecord<byte[], byte[]> toKafka(PollingOutbox.Row row) {
    RecordHeaders headers = new RecordHeaders();
    headerFormat.write(
        headers,
        new HeaderFormat.Event(
            row.id().toString(),
            row.eventType(),
            row.aggregateType(),
            row.aggregateId(),
            row.occurredAt().toInstant().toString(),
            row.traceparent(),
            row.tracestate()),
        source);
    return new ProducerRecord<>(
        topicPrefix + row.aggregateType(),
        null,
        MessageHeaders.encode(row.aggregateId()),
        MessageHeaders.encode(row.payload()),
        headers);
  }
}
