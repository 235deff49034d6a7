package dev.ordinal.relay.internal;

import dev.ordinal.messaging.kafka.HeaderFormat;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.kafka.Topics;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
 * Sends claimed outbox rows to Kafka in the order given and waits, within a bound, for every
 * acknowledgement. Reports which rows Kafka acknowledged; the caller marks only those.
 */
public final class PollingPublisher {
  /** What became of one batch: the acknowledged rows' ids, in send order, and the rest. */
  public record Outcome(List<UUID> acknowledged, int failed, Throwable firstError) {}

  private final Producer<byte[], byte[]> producer;
  private final String topicPrefix;
  private final Clock clock;
  private final Consumer<Duration> lag;
  private final Topics.Known topics;
  private HeaderFormat headerFormat = HeaderFormat.ORDINAL;
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

  /**
   * Sends {@code rows} in order and waits for their acknowledgements. Deadlines are {@link
   * System#nanoTime()} values: no send is started after {@code sendBy}, and no acknowledgement is
   * waited for after {@code ackBy}. A row not sent in time, whose send fails, or that is not
   * acknowledged in time counts as failed. When {@code send} itself throws (no metadata, full
   * buffer, producer closed), the rows after it are not sent: they would fail the same way.
   *
   * @throws InterruptedException when interrupted while waiting; nothing is reported then, and the
   *     caller marks nothing
   */
  public Outcome publish(List<PollingOutbox.Row> rows, long sendBy, long ackBy)
      throws InterruptedException {
    List<Future<RecordMetadata>> sends = new ArrayList<>(rows.size());
    Throwable firstError = null;
    for (PollingOutbox.Row row : rows) {
      if (System.nanoTime() - sendBy > 0) {
        firstError = new TimeoutException("the batch's send window closed; the rest waits");
        break;
      }
      try {
        ProducerRecord<byte[], byte[]> record = toKafka(row);
        if (topics != null) {
          topics.ensure(record.topic());
        }
        sends.add(
            producer.send(
                record,
                (metadata, error) -> {
                  if (error == null) {
                    lag.accept(Duration.between(row.occurredAt().toInstant(), clock.instant()));
                  }
                }));
      } catch (KafkaException e) {
        firstError = e;
        break;
      }
    }
    List<UUID> acknowledged = new ArrayList<>(sends.size());
    for (int i = 0; i < sends.size(); i++) {
      try {
        sends.get(i).get(Math.max(0, ackBy - System.nanoTime()), TimeUnit.NANOSECONDS);
        acknowledged.add(rows.get(i).id());
      } catch (ExecutionException e) {
        firstError = firstError == null ? e.getCause() : firstError;
      } catch (TimeoutException e) {
        firstError = firstError == null ? e : firstError;
      }
    }
    return new Outcome(List.copyOf(acknowledged), rows.size() - acknowledged.size(), firstError);
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
            row.traceparent()),
        source);
    return new ProducerRecord<>(
        topicPrefix + row.aggregateType(),
        null,
        MessageHeaders.encode(row.aggregateId()),
        MessageHeaders.encode(row.payload()),
        headers);
  }
}
