package dev.ordinal.relay.internal;

import dev.ordinal.messaging.MessageHeaders;
import dev.ordinal.messaging.Topics;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Sends each outbox event to Kafka and marks it processed only once Kafka acknowledged it, in
 * order, so the stored position never passes an unacknowledged event. Everything else the engine
 * hands over (heartbeats, WAL messages) is marked processed without sending, or the position would
 * stop advancing.
 */
public final class KafkaForwarder
    implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> {
  /** The header the outbox EventRouter puts the event id in; only outbox events carry it. */
  static final String ROUTER_ID_HEADER = "id";

  private final Producer<byte[], byte[]> producer;
  private final String topicPrefix;
  private final Counter relayed;
  private final Timer lag;
  private final Clock clock;
  private final Topics.Known topics;

  public KafkaForwarder(
      Producer<byte[], byte[]> producer,
      String topicPrefix,
      Counter relayed,
      Timer lag,
      Clock clock,
      Topics.Known topics) {
    this.topics = topics;
    this.producer = producer;
    this.topicPrefix = topicPrefix + ".";
    this.relayed = relayed;
    this.lag = lag;
    this.clock = clock;
  }

  @Override
  public void handleBatch(
      List<RecordChangeEvent<SourceRecord>> events,
      DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
      throws InterruptedException {
    List<Future<RecordMetadata>> sends = new ArrayList<>(events.size());
    for (RecordChangeEvent<SourceRecord> event : events) {
      SourceRecord r = event.record();
      if (isOutboxEvent(r)) {
        topics.ensure(r.topic());
        sends.add(producer.send(toKafka(r)));
      } else {
        sends.add(null);
      }
    }
    for (int i = 0; i < events.size(); i++) {
      Future<RecordMetadata> send = sends.get(i);
      if (send != null) {
        try {
          send.get();
        } catch (ExecutionException e) {
          throw new IllegalStateException(
              "Kafka did not acknowledge an outbox event; the relay stops and re-sends from the"
                  + " last stored position: "
                  + e.getCause(),
              e.getCause());
        }
        relayed.increment();
        Long committedAt = events.get(i).record().timestamp();
        if (committedAt != null) {
          lag.record(Duration.ofMillis(Math.max(0, clock.millis() - committedAt)));
        }
      }
      committer.markProcessed(events.get(i));
    }
    committer.markBatchFinished();
  }

  private boolean isOutboxEvent(SourceRecord r) {
    return r.topic() != null
        && r.topic().startsWith(topicPrefix)
        && r.value() != null
        && r.headers().lastWithName(ROUTER_ID_HEADER) != null;
  }

  static ProducerRecord<byte[], byte[]> toKafka(SourceRecord r) {
    RecordHeaders headers = new RecordHeaders();
    for (Header h : r.headers()) {
      if (h.value() == null) {
        continue;
      }
      String name = ROUTER_ID_HEADER.equals(h.key()) ? MessageHeaders.MESSAGE_ID : h.key();
      headers.add(name, MessageHeaders.encode(String.valueOf(h.value())));
    }
    byte[] key = r.key() == null ? null : MessageHeaders.encode(String.valueOf(r.key()));
    byte[] value = MessageHeaders.encode(String.valueOf(r.value()));
    return new ProducerRecord<>(r.topic(), null, key, value, headers);
  }
}
