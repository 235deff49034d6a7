package dev.ordinal.relay.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.contracts.AggregateType;
import dev.ordinal.contracts.EventType;
import dev.ordinal.messaging.kafka.HeaderFormat;
import dev.ordinal.messaging.kafka.MessageHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** Record mapping and the send window; delivery itself is proven by {@code PollingRelayIT}. */
class PollingPublisherTest {
  static final Instant NOW = Instant.parse("2026-03-02T12:00:00Z");
  static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

  static PollingOutbox.Row row(int n, String traceparent) {
    return row(n, traceparent, null);
  }

  static PollingOutbox.Row row(int n, String traceparent, String tracestate) {
    return new PollingOutbox.Row(
        new UUID(0, n),
        AggregateType.ORDER.wireName(),
        "order-" + n,
        EventType.ORDER_PLACED.wireName(),
        "{\"n\": " + n + "}",
        OffsetDateTime.ofInstant(NOW.minusSeconds(n), ZoneOffset.UTC),
        traceparent,
        tracestate);
  }

  /** Publishes {@code rows} while {@code broker} answers the sends: 5 s to send, 10 s to ack. */
  static PollingPublisher.Outcome publishWith(
      Thread broker, PollingPublisher publisher, List<PollingOutbox.Row> rows, long now)
      throws InterruptedException {
    broker.start();
    PollingPublisher.Outcome outcome =
        publisher.publish(rows, now + Duration.ofSeconds(5).toNanos(), now + 10_000_000_000L);
    broker.join();
    return outcome;
  }

  static String header(ProducerRecord<byte[], byte[]> r, String name) {
    return r.headers().lastHeader(name) == null
        ? null
        : new String(r.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }

  @Test
  void aRowBecomesTheContractsRecordWithPlainUtf8HeadersAndNoNullTraceparent() {
    PollingPublisher publisher = new PollingPublisher(new MockProducer<>(), "p", CLOCK, d -> {});

    ProducerRecord<byte[], byte[]> r = publisher.toKafka(row(1, null));

    assertThat(r.topic()).isEqualTo("p.order");
    assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo("order-1");
    assertThat(new String(r.value(), StandardCharsets.UTF_8)).isEqualTo("{\"n\": 1}");
    assertThat(r.headers().toArray()).hasSize(4);
    assertThat(header(r, MessageHeaders.MESSAGE_ID)).isEqualTo(new UUID(0, 1).toString());
    assertThat(header(r, MessageHeaders.EVENT_TYPE)).isEqualTo(EventType.ORDER_PLACED.wireName());
    assertThat(header(r, MessageHeaders.AGGREGATE_TYPE)).isEqualTo("order");
    assertThat(header(r, MessageHeaders.OCCURRED_AT)).isEqualTo("2026-03-02T11:59:59Z");
    assertThat(header(r, MessageHeaders.TRACEPARENT)).isNull();

    assertThat(header(r, MessageHeaders.TRACESTATE)).isNull();

    assertThat(header(publisher.toKafka(row(2, "00-abc-def-01")), MessageHeaders.TRACEPARENT))
        .isEqualTo("00-abc-def-01");
    ProducerRecord<byte[], byte[]> traced =
        publisher.toKafka(row(3, "00-abc-def-01", "ordinal=t1,congo=x"));
    assertThat(traced.headers().toArray()).hasSize(6);
    assertThat(header(traced, MessageHeaders.TRACEPARENT)).isEqualTo("00-abc-def-01");
    assertThat(header(traced, MessageHeaders.TRACESTATE)).isEqualTo("ordinal=t1,congo=x");
  }

  @Test
  void inCloudEventsFormTheRowIsDescribedByCeHeaders() {
    PollingPublisher publisher =
        new PollingPublisher(new MockProducer<>(), "p", CLOCK, d -> {})
            .headers(HeaderFormat.CLOUDEVENTS, "/ordinal/orders");

    ProducerRecord<byte[], byte[]> r = publisher.toKafka(row(1, null));

    assertThat(header(r, HeaderFormat.CE_ID)).isEqualTo(new UUID(0, 1).toString());
    assertThat(header(r, HeaderFormat.CE_TYPE)).isEqualTo(EventType.ORDER_PLACED.wireName());
    assertThat(header(r, HeaderFormat.CE_SOURCE)).isEqualTo("/ordinal/orders");
    assertThat(header(r, HeaderFormat.CE_SUBJECT)).isEqualTo("order-1");
    assertThat(header(r, HeaderFormat.CE_TIME)).isEqualTo("2026-03-02T11:59:59Z");
    assertThat(header(r, MessageHeaders.MESSAGE_ID)).isNull();
    assertThat(r.headers().toArray()).hasSize(7);
  }

  @Test
  void onlyAcknowledgedRowsAreReportedAndTheLagIsMeasuredOnTheClock() throws Exception {
    MockProducer<byte[], byte[]> producer =
        new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());
    List<Duration> lags = new ArrayList<>();
    PollingPublisher publisher = new PollingPublisher(producer, "p", CLOCK, lags::add);
    List<PollingOutbox.Row> rows = List.of(row(3, null), row(2, null), row(1, null));
    long now = System.nanoTime();
    Thread broker =
        new Thread(
            () -> {
              await().atMost(Duration.ofSeconds(5)).until(() -> producer.history().size() == 3);
              producer.completeNext();
              producer.errorNext(new NotEnoughReplicasException("one replica"));
              producer.completeNext();
            });
    PollingPublisher.Outcome outcome = publishWith(broker, publisher, rows, now);

    assertThat(producer.history())
        .extracting(r -> new String(r.key(), StandardCharsets.UTF_8))
        .containsExactly("order-3", "order-2", "order-1");
    assertThat(outcome.acknowledged()).containsExactly(new UUID(0, 3), new UUID(0, 1));
    assertThat(outcome.failed()).isEqualTo(1);
    assertThat(outcome.firstError()).isInstanceOf(NotEnoughReplicasException.class);
    assertThat(lags).containsExactlyInAnyOrder(Duration.ofSeconds(3), Duration.ofSeconds(1));
  }

  @Test
  void eachRowHasAProducerSpanEndedOnItsAnswerAndTheRecordKeepsTheRowsTraceparent()
      throws Exception {
    MockProducer<byte[], byte[]> producer =
        new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());
    RecordedSpans recorded = new RecordedSpans();
    PollingPublisher publisher =
        new PollingPublisher(producer, "p", CLOCK, d -> {}).spans(new PublishSpan(recorded.tracer));
    String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    List<PollingOutbox.Row> rows = List.of(row(2, traceparent, "ordinal=t1"), row(1, null, null));
    long now = System.nanoTime();
    Thread broker =
        new Thread(
            () -> {
              await().atMost(Duration.ofSeconds(5)).until(() -> producer.history().size() == 2);
              producer.completeNext();
              producer.errorNext(new NotEnoughReplicasException("one replica"));
            });
    publishWith(broker, publisher, rows, now);

    assertThat(recorded.ended).hasSize(2);
    assertThat(recorded.ended)
        .extracting(io.opentelemetry.sdk.trace.data.SpanData::getKind)
        .containsOnly(io.opentelemetry.api.trace.SpanKind.PRODUCER);
    assertThat(recorded.ended.get(0).getParentSpanId()).isEqualTo("00f067aa0ba902b7");
    assertThat(recorded.ended.get(0).getStatus().getStatusCode())
        .isEqualTo(io.opentelemetry.api.trace.StatusCode.UNSET);
    assertThat(recorded.ended.get(1).getStatus().getStatusCode())
        .isEqualTo(io.opentelemetry.api.trace.StatusCode.ERROR);
    // the header is the row's own, not the relay span's
    assertThat(header(producer.history().get(0), MessageHeaders.TRACEPARENT))
        .isEqualTo(traceparent);
    assertThat(header(producer.history().get(0), MessageHeaders.TRACESTATE))
        .isEqualTo("ordinal=t1");
    assertThat(header(producer.history().get(1), MessageHeaders.TRACEPARENT)).isNull();
  }

  @Test
  void nothingIsSentOnceTheSendWindowHasClosedSoTheRowsWaitForTheirLease() throws Exception {
    MockProducer<byte[], byte[]> producer =
        new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    PollingPublisher publisher = new PollingPublisher(producer, "p", CLOCK, d -> {});
    long now = System.nanoTime();

    PollingPublisher.Outcome outcome =
        publisher.publish(List.of(row(1, null), row(2, null)), now - 1, now + 1_000_000_000L);

    assertThat(producer.history()).isEmpty();
    assertThat(outcome.acknowledged()).isEmpty();
    assertThat(outcome.failed()).isEqualTo(2);
  }

  @Test
  void afterAFailedSendNoYoungerRowOfItsAggregateIsSentWhileOtherAggregatesGoOn() throws Exception {
    MockProducer<byte[], byte[]> producer =
        new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());
    PollingPublisher publisher = new PollingPublisher(producer, "p", CLOCK, d -> {});
    // aggregates order-1 (rows 11, 12) and order-2 (rows 21, 22), oldest first
    List<PollingOutbox.Row> rows =
        List.of(of(11, "order-1"), of(21, "order-2"), of(12, "order-1"), of(22, "order-2"));
    long now = System.nanoTime();
    Thread broker =
        new Thread(
            () -> {
              await().atMost(Duration.ofSeconds(5)).until(() -> producer.history().size() == 2);
              producer.errorNext(new NotEnoughReplicasException("one replica"));
              producer.completeNext();
              await().atMost(Duration.ofSeconds(5)).until(() -> producer.history().size() == 3);
              producer.completeNext();
            });
    PollingPublisher.Outcome outcome = publishWith(broker, publisher, rows, now);

    assertThat(producer.history())
        .extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
        .containsExactly("{\"n\": 11}", "{\"n\": 21}", "{\"n\": 22}");
    assertThat(outcome.acknowledged()).containsExactly(new UUID(0, 21), new UUID(0, 22));
    assertThat(outcome.failed()).isEqualTo(2);
    assertThat(outcome.unsent()).containsExactly(new UUID(0, 11), new UUID(0, 12));
    assertThat(outcome.firstError()).isInstanceOf(NotEnoughReplicasException.class);
  }

  private static PollingOutbox.Row of(int n, String aggregate) {
    PollingOutbox.Row r = row(n, null);
    return new PollingOutbox.Row(
        r.id(),
        r.aggregateType(),
        aggregate,
        r.eventType(),
        r.payload(),
        r.occurredAt(),
        null,
        null);
  }
}
