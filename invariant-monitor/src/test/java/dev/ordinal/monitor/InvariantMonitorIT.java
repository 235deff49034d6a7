package dev.ordinal.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordinal.contracts.EventType;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The monitor once against the real broker: events in, the expected alerts out, nothing else. */
@ExtendWith(OrdinalStackExtension.class)
class InvariantMonitorIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void anUninvoicedOrderAndADoubleNumberAreReportedAndADuplicateDeliveryIsNot(
      TestNamespace ns, @TempDir Path stateDir) throws Exception {
    String bootstrap = ns.stack().kafkaBootstrap();
    MonitorConfig config =
        new MonitorConfig(
            ns.topicPrefix(),
            Duration.ofSeconds(3),
            Duration.ofSeconds(2),
            Duration.ofMillis(200),
            ns.name() + "-monitor-" + UUID.randomUUID());
    for (String topic :
        List.of(
            config.orderTopic(),
            config.orderBulkTopic(),
            config.invoiceTopic(),
            config.alertsTopic())) {
      Topics.ensure(bootstrap, topic, 1);
    }
    SimpleMeterRegistry meters = new SimpleMeterRegistry();

    try (InvariantMonitor monitor =
            new InvariantMonitor(
                config,
                KafkaClients.of(bootstrap),
                Map.of(
                    StreamsConfig.STATE_DIR_CONFIG,
                    stateDir.toString(),
                    StreamsConfig.COMMIT_INTERVAL_MS_CONFIG,
                    100),
                meters);
        KafkaProducer<String, String> producer =
            new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
                new StringSerializer(),
                new StringSerializer());
        KafkaConsumer<String, String> alerts =
            new KafkaConsumer<>(
                Map.of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                    bootstrap,
                    ConsumerConfig.GROUP_ID_CONFIG,
                    ns.group("alerts-reader"),
                    ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                    "earliest"),
                new StringDeserializer(),
                new StringDeserializer())) {
      monitor.start();
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> monitor.state() == KafkaStreams.State.RUNNING);

      // o-1: placed, never invoiced. o-2: placed and invoiced with number 1, the invoice delivered
      // twice. o-3: placed and invoiced, but with number 1 again.
      EventType placed = EventType.ORDER_PLACED;
      EventType issued = EventType.INVOICE_ISSUED;
      send(producer, config.orderTopic(), "o-1", placed, id(), TestEvents.placed("o-1", "A"));
      send(producer, config.orderBulkTopic(), "o-2", placed, id(), TestEvents.placed("o-2", "A"));
      send(producer, config.orderTopic(), "o-3", placed, id(), TestEvents.placed("o-3", "A"));
      String twice = id();
      send(producer, config.invoiceTopic(), "o-2", issued, twice, invoice("o-2", 1));
      send(producer, config.invoiceTopic(), "o-2", issued, twice, invoice("o-2", 1));
      send(producer, config.invoiceTopic(), "o-3", issued, id(), invoice("o-3", 1));
      producer.flush();

      alerts.subscribe(List.of(config.alertsTopic()));
      List<JsonNode> received = new ArrayList<>();
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () -> {
                readAlerts(alerts, Duration.ofMillis(200), received);
                return received.stream()
                    .anyMatch(a -> a.get("kind").asText().equals("MISSING_INVOICE"));
              });
      // then exactly these two, and still only these two a deadline and more later
      await()
          .during(Duration.ofSeconds(4))
          .atMost(Duration.ofSeconds(20))
          .pollInterval(Duration.ofMillis(200))
          .untilAsserted(
              () -> {
                readAlerts(alerts, Duration.ofMillis(100), received);
                assertThat(received)
                    .extracting(a -> a.get("kind").asText() + ":" + key(a))
                    .containsExactlyInAnyOrder(
                        "MISSING_INVOICE:" + TestEvents.id("o-1"), "DUPLICATE_NUMBER:A");
              });
      assertThat(meters.counter("ordinal.monitor.alerts", "kind", "MISSING_INVOICE").count())
          .isEqualTo(1.0);
      assertThat(meters.counter("ordinal.monitor.alerts", "kind", "DUPLICATE_NUMBER").count())
          .isEqualTo(1.0);
    }
  }

  private static String key(JsonNode alert) {
    return alert.has("orderId") ? alert.get("orderId").asText() : alert.get("series").asText();
  }

  private static String id() {
    return UUID.randomUUID().toString();
  }

  private static String invoice(String order, long number) {
    return TestEvents.issued(order, "inv-" + order, "A", number);
  }

  /** A record keyed by the id of the order named {@code order}, as the producers key them. */
  private static void send(
      KafkaProducer<String, String> producer,
      String topic,
      String order,
      EventType eventType,
      String messageId,
      String payload) {
    ProducerRecord<String, String> record =
        new ProducerRecord<>(topic, TestEvents.id(order).toString(), payload);
    record.headers().add(MessageHeaders.MESSAGE_ID, MessageHeaders.encode(messageId));
    record.headers().add(MessageHeaders.EVENT_TYPE, MessageHeaders.encode(eventType.wireName()));
    producer.send(record);
  }

  /**
   * Polls {@code alerts} once, for up to {@code poll}, and adds each alert read to {@code into}.
   */
  private static void readAlerts(
      KafkaConsumer<String, String> alerts, Duration poll, List<JsonNode> into)
      throws JsonProcessingException {
    for (ConsumerRecord<String, String> r : alerts.poll(poll)) {
      into.add(JSON.readTree(r.value()));
    }
  }
}
