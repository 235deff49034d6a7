package dev.ordinal.relay.internal;

import dev.ordinal.messaging.kafka.HeaderFormat;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.messaging.kafka.KafkaRefusals;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.relay.PoisonRowException;
import dev.ordinal.relay.connect.OutboxHeaders;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.opentelemetry.api.trace.Span;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends each outbox event to Kafka and marks it processed only once Kafka acknowledged it, in
 * order, so the stored position never passes an unacknowledged event. Everything else the engine
 * hands over (heartbeats, WAL messages) is marked processed without sending, or the position would
 * stop advancing.
 *
 * <p>A row Kafka refuses for good (too large, an invalid topic) is a poison row: the forwarder
 * sends nothing after it, waits for what it sent before it, and throws {@link PoisonRowException},
 * so the engine stops with the position just before the row. The producer refuses a record too
 * large for {@code max.request.size} before sending it, so no later event is in flight then; a
 * refusal that comes back from the broker may find later events of the batch already sent. The rows
 * in {@code skip} are passed over without sending. A topic the cluster does not let this relay's
 * user write (a missing ACL) is not a poison row, since granting the ACL mends it: the batch fails
 * with one sentence naming WRITE, the topic and the client properties ({@link
 * KafkaRefusals#notAuthorized}), so the engine stops and runs again until it is granted.
 *
 * <p>A send that fails once it has left this thread (a timeout, a broker's refusal) abandons the
 * producer at once ({@link #abandoning}): nothing queued after it is written, the batch fails, and
 * the relay re-sends from its stored position with a new producer.
 *
 * <p>Before each record it asks {@code mayPublish} (the leader lease, {@link
 * LeaderLock#leaseHolds()}); once the lease has run out it sends nothing more, waits for what it
 * sent, and throws {@link LeaseLostException}, so a leader that was frozen and has lost the lead
 * decides to send nothing after it wakes. What it had decided before the freeze (the record in hand
 * between the check and the producer, what the producer buffered) may still reach Kafka then, as
 * copies under their message ids, which consumers skip. Each record's timestamp is the time taken
 * just before that check, so it tells when the record was decided: a record sent after a wake but
 * decided before the freeze carries a time before it. Each record carries {@code relayed-by}: this
 * relay's instance.
 *
 * @param clients what made {@code producer}, to name its cluster and properties in a refusal
 * @param topicPrefix the prefix of the outbox's topics: an event routed to {@code
 *     <topicPrefix>.<aggregate_type>} is an outbox event
 * @param outbox the outbox table's name, for messages ({@code <schema>.outbox})
 * @param skip outbox row ids never to send (an operator's decision after a poison row)
 * @param instanceId this relay, written in each record's {@code relayed-by} header
 * @param headerFormat Ordinal's headers, CloudEvents' or both
 * @param source CloudEvents' {@code ce_source} of this outbox's events
 * @param mayPublish asked before each record: false once this relay may have lost the lead
 * @param acknowledged raised to the WAL position of each record marked processed (published and
 *     acknowledged, or passed over): how far this process has relayed
 * @param spans the {@link PublishSpan} of each event sent, ended on Kafka's acknowledgement
 */
public record KafkaForwarder(
    Producer<byte[], byte[]> producer,
    KafkaClients clients,
    String topicPrefix,
    String outbox,
    Set<UUID> skip,
    KafkaForwarder.Meters meters,
    Clock clock,
    Topics.Known topics,
    String instanceId,
    HeaderFormat headerFormat,
    String source,
    BooleanSupplier mayPublish,
    AtomicLong acknowledged,
    PublishSpan spans)
    implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> {
  private static final Logger log = LoggerFactory.getLogger(KafkaForwarder.class);

  private static final String ROUTER_ID_HEADER = OutboxHeaders.ROUTER_ID;

  /**
   * What the forwarder counts: events acknowledged, their commit-to-acknowledgement lag, stops on a
   * poison row, rows skipped as told.
   */
  public record Meters(Counter relayed, Timer lag, Counter unpublishable, Counter skipped) {}

  /** Keeps a copy of {@code skip}. */
  public KafkaForwarder {
    skip = Set.copyOf(skip);
  }

  @Override
  public void handleBatch(
      List<RecordChangeEvent<SourceRecord>> events,
      DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
      throws InterruptedException {
    List<Future<RecordMetadata>> sends = new ArrayList<>(events.size());
    PoisonRowException poison = null;
    LeaseLostException leaseLost = null;
    IllegalStateException abandoned = null;
    for (RecordChangeEvent<SourceRecord> event : events) {
      SourceRecord r = event.record();
      if (!isOutboxEvent(r)) {
        sends.add(null);
        continue;
      }
      if (skip.contains(eventId(r))) {
        log.warn(
            "Outbox row {} of {} {} is not published: the relay was started with --skip-event {}"
                + " (the row stays in {})",
            eventId(r),
            header(r, "aggregate-type"),
            r.key(),
            eventId(r),
            outbox);
        meters.skipped().increment();
        sends.add(null);
        continue;
      }
      // before the lease check: a freeze after the check leaves the record stamped before it
      long decidedAt = clock.millis();
      if (!mayPublish.getAsBoolean()) {
        leaseLost =
            new LeaseLostException(
                "Relay "
                    + instanceId
                    + " may have lost the lead (its lease ran out: the process was frozen or"
                    + " could not reach PostgreSQL); it sends nothing more and steps down");
        break; // nothing is sent once another relay may be streaming
      }
      topics.ensure(r.topic());
      Future<RecordMetadata> send;
      Span span =
          spans.start(
              r.topic(),
              OutboxHeaders.text(r, MessageHeaders.TRACEPARENT),
              OutboxHeaders.text(r, MessageHeaders.TRACESTATE));
      try {
        send =
            producer.send(
                toKafka(r, instanceId, decidedAt, headerFormat, source),
                PublishSpan.ending(span, abandoning(producer)));
      } catch (IllegalStateException closed) {
        // abandoned after an earlier send failed: that failure is what the batch reports below
        PublishSpan.failed(span, closed);
        abandoned = closed;
        break;
      } catch (RuntimeException e) {
        PublishSpan.failed(span, e);
        throw e;
      }
      Throwable refused = refusedAtOnce(send);
      if (refused instanceof TopicAuthorizationException forbidden) {
        throw notAuthorized(r, forbidden);
      }
      if (refused != null && isPoison(refused)) {
        poison = poison(r, refused);
        break; // nothing after the poison row is sent
      }
      sends.add(send);
    }
    for (int i = 0; i < sends.size(); i++) {
      Future<RecordMetadata> send = sends.get(i);
      if (send != null) {
        try {
          send.get();
        } catch (ExecutionException e) {
          if (e.getCause() instanceof TopicAuthorizationException forbidden) {
            throw notAuthorized(events.get(i).record(), forbidden);
          }
          if (isPoison(e.getCause())) {
            committer.markBatchFinished();
            throw counted(poison(events.get(i).record(), e.getCause()));
          }
          throw new IllegalStateException(
              "Kafka did not acknowledge an outbox event; the relay stops and re-sends from the"
                  + " last stored position: "
                  + e.getCause(),
              e.getCause());
        }
        meters.relayed().increment();
        Long committedAt = OutboxHeaders.committedAt(events.get(i).record());
        if (committedAt != null) {
          meters.lag().record(Duration.ofMillis(Math.max(0, clock.millis() - committedAt)));
        }
      }
      committer.markProcessed(events.get(i));
      long lsn = SlotPosition.lsnOf(events.get(i).record().sourceOffset());
      acknowledged.accumulateAndGet(lsn, Math::max);
    }
    committer.markBatchFinished();
    if (poison != null) {
      throw counted(poison);
    }
    if (abandoned != null) {
      throw abandoned;
    }
    if (leaseLost != null) {
      throw leaseLost;
    }
  }

  /**
   * A send's callback that abandons the producer ({@code close(Duration.ZERO)}: what it still holds
   * is failed, not sent) as soon as a send fails after it left the caller: an idempotent producer
   * that carried on would bump its epoch and write the batches queued after the failed one, so a
   * key's later event would reach the topic before the earlier one, which the relay re-sends from
   * its stored position. Called on the producer's own thread, this stops it before its next round.
   * A record the producer refuses at once (too large) fails in the caller's thread, before anything
   * after it is sent: that producer is kept, to deliver what went before the poison row.
   */
  static org.apache.kafka.clients.producer.Callback abandoning(Producer<?, ?> producer) {
    Thread caller = Thread.currentThread();
    return (metadata, failure) -> {
      if (failure != null && Thread.currentThread() != caller) {
        producer.close(Duration.ZERO);
      }
    };
  }

  private PoisonRowException counted(PoisonRowException e) {
    meters.unpublishable().increment();
    return e;
  }

  /** The failure of a send the producer refused before sending anything; null otherwise. */
  private static Throwable refusedAtOnce(Future<RecordMetadata> send) throws InterruptedException {
    if (!send.isDone()) {
      return null;
    }
    try {
      send.get();
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  /** A refusal that sending the same row again cannot change. */
  static boolean isPoison(Throwable e) {
    return e instanceof RecordTooLargeException
        || e instanceof RecordBatchTooLargeException
        || e instanceof InvalidTopicException;
  }

  /** The sentence for a topic this relay's user may not write: a missing ACL, granted later. */
  private RuntimeException notAuthorized(SourceRecord r, TopicAuthorizationException refusal) {
    return KafkaRefusals.notAuthorized(clients, "WRITE", "topic " + r.topic(), refusal);
  }

  private PoisonRowException poison(SourceRecord r, Throwable reason) {
    UUID id = eventId(r);
    return new PoisonRowException(
        id,
        "Outbox row "
            + id
            + " ("
            + header(r, "event-type")
            + " of "
            + header(r, "aggregate-type")
            + " "
            + r.key()
            + ") cannot be published to "
            + r.topic()
            + ": "
            + withoutFinalStop(reason.getMessage())
            + "; the relay stopped before it and publishes nothing after it in "
            + outbox
            + " until the limit is raised (the producer's max.request.size and the topic's"
            + " max.message.bytes) or the relay is restarted with --skip-event "
            + id
            + " to leave it out.",
        reason);
  }

  private static String withoutFinalStop(String m) {
    String s = m == null ? "" : m.strip();
    return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
  }

  private static UUID eventId(SourceRecord r) {
    return UUID.fromString(String.valueOf(r.headers().lastWithName(ROUTER_ID_HEADER).value()));
  }

  private static String header(SourceRecord r, String name) {
    Header h = r.headers().lastWithName(name);
    return h == null || h.value() == null ? "?" : String.valueOf(h.value());
  }

  private boolean isOutboxEvent(SourceRecord r) {
    return r.topic() != null
        && r.topic().startsWith(topicPrefix + ".")
        && r.value() != null
        && r.headers().lastWithName(ROUTER_ID_HEADER) != null;
  }

  /**
   * The Kafka record of an outbox event, stamped {@code timestamp} (epoch ms), with {@link
   * OutboxHeaders#of its headers} ({@code source} is CloudEvents' {@code ce_source}).
   */
  static ProducerRecord<byte[], byte[]> toKafka(
      SourceRecord r, String instanceId, long timestamp, HeaderFormat format, String source) {
    return new ProducerRecord<>(
        r.topic(),
        null,
        timestamp,
        r.key() == null ? null : MessageHeaders.encode(String.valueOf(r.key())),
        value(r.value()),
        OutboxHeaders.of(r, instanceId, format, source));
  }

  /** The payload's bytes: a bytea payload as it is, any other as its text in UTF-8. */
  static byte[] value(Object payload) {
    if (payload instanceof byte[] bytes) {
      return bytes;
    }
    if (payload instanceof java.nio.ByteBuffer buffer) {
      byte[] bytes = new byte[buffer.remaining()];
      buffer.duplicate().get(bytes);
      return bytes;
    }
    return MessageHeaders.encode(String.valueOf(payload));
  }
}
