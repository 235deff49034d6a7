package dev.ordinal.messaging.inbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.inbox.InboxConsumerConfig;
import dev.ordinal.messaging.kafka.KafkaClients;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeadLetterPublisherTest {
  private static InboxConsumerConfig config(KafkaClients clients, Map<String, Object> kafka) {
    return InboxConsumerConfig.builder("billing", "billing-group", List.of("orders"), clients)
        .kafka(kafka)
        .build();
  }

  @Test
  void theProducerConnectsAsTheConsumerDoes() {
    KafkaClients clients =
        KafkaClients.of(
                "broker-a:9093",
                Map.of(
                    "security.protocol", "SASL_SSL",
                    "sasl.mechanism", "SCRAM-SHA-512",
                    "sasl.jaas.config", "jaas",
                    "ssl.truststore.location", "/etc/truststore.jks"),
                "kafka.properties (ORDINAL_KAFKA_CONFIG)")
            .forService("billing", "b1");
    Map<String, Object> props =
        DeadLetterPublisher.producerProps(config(clients, Map.of("request.timeout.ms", 20_000)));
    assertThat(props)
        .containsEntry("bootstrap.servers", "broker-a:9093")
        .containsEntry("security.protocol", "SASL_SSL")
        .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
        .containsEntry("sasl.jaas.config", "jaas")
        .containsEntry("ssl.truststore.location", "/etc/truststore.jks")
        .containsEntry("request.timeout.ms", 20_000)
        .containsEntry("client.id", "ordinal-billing-b1-dlq-billing");
  }

  @Test
  void consumerOnlySettingsInterceptorsAndClientIdStayTheConsumers() {
    Map<String, Object> props =
        DeadLetterPublisher.producerProps(
            config(
                KafkaClients.of("localhost:9092"),
                Map.of(
                    "max.poll.records", 10,
                    "group.instance.id", "billing-1",
                    "interceptor.classes", "com.example.ConsumerInterceptor",
                    "client.id", "billing-consumer",
                    "acks", "1",
                    "enable.idempotence", false)));
    assertThat(props)
        .containsOnlyKeys(
            "bootstrap.servers",
            "enable.idempotence",
            "acks",
            "client.id",
            "delivery.timeout.ms",
            "request.timeout.ms",
            "max.block.ms")
        .containsEntry("bootstrap.servers", "localhost:9092")
        .containsEntry("enable.idempotence", true)
        .containsEntry("acks", "all")
        .containsEntry("client.id", "ordinal-dlq-billing");
  }

  @Test
  void aDeadLettersSendIsBoundedUnlessTheUserOrTheCallerSetsItsTimeouts() {
    Map<String, Object> bounded =
        DeadLetterPublisher.producerProps(config(KafkaClients.of("localhost:9092"), Map.of()));
    assertThat(bounded)
        .containsEntry("delivery.timeout.ms", 30_000)
        .containsEntry("request.timeout.ms", 10_000)
        .containsEntry("max.block.ms", 10_000);

    KafkaClients users =
        KafkaClients.of(
            "localhost:9092", Map.of("delivery.timeout.ms", "90000"), "kafka.properties (test)");
    Map<String, Object> theirs =
        DeadLetterPublisher.producerProps(config(users, Map.of("max.block.ms", 5_000)));
    assertThat(theirs)
        .containsEntry("delivery.timeout.ms", "90000")
        .containsEntry("max.block.ms", 5_000)
        .containsEntry("request.timeout.ms", 10_000);
  }
}
