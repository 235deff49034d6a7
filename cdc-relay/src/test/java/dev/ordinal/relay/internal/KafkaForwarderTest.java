package dev.ordinal.relay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.contracts.EventType;
import dev.ordinal.messaging.kafka.HeaderFormat;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.relay.connect.RoutedEvents;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

class KafkaForwarderTest {

  @Test
  void theRoutersIdHeaderBecomesTheMessageIdAndValuesArePlainUtf8() {
    SourceRecord source = RoutedEvents.orderPlaced();

    ProducerRecord<byte[], byte[]> r =
        KafkaForwarder.toKafka(
            source, "relay-a", 1_796_150_001_000L, HeaderFormat.ORDINAL, "/ordinal/orders");
    ordinalRecordChecks(source, r);
  }

  @Test
  void inCloudEventsFormTheEventIsDescribedByCeHeadersInsteadOfOrdinals() {
    ProducerRecord<byte[], byte[]> r =
        KafkaForwarder.toKafka(
            RoutedEvents.orderPlaced(),
            "relay-a",
            1_796_150_001_000L,
            HeaderFormat.CLOUDEVENTS,
            "/ordinal/orders");

    assertThat(text(r, HeaderFormat.CE_ID)).isEqualTo("7f1c0f4e-0000-4000-8000-000000000001");
    assertThat(text(r, HeaderFormat.CE_TYPE)).isEqualTo(EventType.ORDER_PLACED.wireName());
    assertThat(text(r, HeaderFormat.CE_SOURCE)).isEqualTo("/ordinal/orders");
    assertThat(text(r, HeaderFormat.CE_SUBJECT)).isEqualTo("order-1");
    assertThat(text(r, HeaderFormat.CE_TIME)).isEqualTo("2026-12-01T18:33:20.123456Z");
    assertThat(text(r, HeaderFormat.CE_SPECVERSION)).isEqualTo("1.0");
    assertThat(text(r, HeaderFormat.CONTENT_TYPE)).isEqualTo("application/json");
    assertThat(r.headers().lastHeader(MessageHeaders.MESSAGE_ID)).isNull();
    assertThat(r.headers().lastHeader(MessageHeaders.EVENT_TYPE)).isNull();
    assertThat(text(r, MessageHeaders.RELAYED_BY)).isEqualTo("relay-a");
    assertThat(r.headers().toArray()).hasSize(9);

    ProducerRecord<byte[], byte[]> both =
        KafkaForwarder.toKafka(
            RoutedEvents.orderPlaced(),
            "relay-a",
            1_796_150_001_000L,
            HeaderFormat.BOTH,
            "/ordinal/orders");
    assertThat(text(both, MessageHeaders.MESSAGE_ID)).isEqualTo(text(both, HeaderFormat.CE_ID));
    assertThat(both.headers().toArray()).hasSize(12);
  }

  @Test
  void aByteaPayloadIsSentAsItsBytesAndAnyOtherAsItsText() {
    byte[] raw = {0, (byte) 0xff, 42};
    assertThat(KafkaForwarder.value(raw)).isEqualTo(raw);
    assertThat(KafkaForwarder.value(java.nio.ByteBuffer.wrap(raw))).isEqualTo(raw);
    assertThat(KafkaForwarder.value("{\"a\":\"é\"}"))
        .isEqualTo("{\"a\":\"é\"}".getBytes(StandardCharsets.UTF_8));
  }

  private static String text(ProducerRecord<byte[], byte[]> r, String header) {
    return new String(r.headers().lastHeader(header).value(), StandardCharsets.UTF_8);
  }

  private static void ordinalRecordChecks(SourceRecord source, ProducerRecord<byte[], byte[]> r) {
    assertThat(r.topic()).isEqualTo("p.order");
    assertThat(r.timestamp())
        .as("the time the forwarder decided to send it")
        .isEqualTo(1_796_150_001_000L);
    assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo("order-1");
    assertThat(new String(r.value(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
    assertThat(r.headers().toArray()).hasSize(5);
    assertThat(new String(r.headers().lastHeader(MessageHeaders.COMMITTED_AT).value()))
        .isEqualTo("2026-12-01T18:33:20.123Z");
    assertThat(dev.ordinal.relay.connect.OutboxHeaders.committedAt(source))
        .isEqualTo(1_796_150_000_123L);
    assertThat(new String(r.headers().lastHeader(MessageHeaders.RELAYED_BY).value()))
        .isEqualTo("relay-a");
    assertThat(new String(r.headers().lastHeader(MessageHeaders.MESSAGE_ID).value()))
        .isEqualTo("7f1c0f4e-0000-4000-8000-000000000001");
    assertThat(new String(r.headers().lastHeader(MessageHeaders.EVENT_TYPE).value()))
        .isEqualTo(EventType.ORDER_PLACED.wireName());
    assertThat(r.headers().lastHeader("id")).isNull();
  }

  @Test
  void aSendThatFailsAfterLeavingTheCallerAbandonsTheProducerSoNothingQueuedBehindItIsSent()
      throws Exception {
    MockProducer<byte[], byte[]> producer =
        new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());
    Future<RecordMetadata> k = producer.send(record("k"), KafkaForwarder.abandoning(producer));
    Future<RecordMetadata> next = producer.send(record("k+1"), KafkaForwarder.abandoning(producer));

    // the failure comes back on the producer's own thread, as a timeout or a broker's refusal does
    Thread network = new Thread(() -> producer.errorNext(new TimeoutException("expired")));
    network.start();
    network.join(10_000);

    assertThat(k).isDone();
    assertThat(producer.closed()).as("abandoned at the first failure").isTrue();
    // an abandoned producer takes nothing more: a batch after the failed one is never written
    assertThat(producer.history()).hasSize(2);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> producer.send(record("k+2")))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aRecordRefusedInTheCallersThreadKeepsTheProducerForWhatWentBefore() {
    MockProducer<byte[], byte[]> producer =
        new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());
    producer.send(record("k"), KafkaForwarder.abandoning(producer));
    producer.errorNext(new RecordTooLargeException("too large")); // in the caller's thread

    assertThat(producer.closed()).isFalse();
  }

  private static ProducerRecord<byte[], byte[]> record(String value) {
    return new ProducerRecord<>(
        "p.order", "key".getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8));
  }
}
