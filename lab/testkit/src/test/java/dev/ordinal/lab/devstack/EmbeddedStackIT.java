package dev.ordinal.lab.devstack;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(OrdinalStackExtension.class)
class EmbeddedStackIT {

  @Test
  void postgresHasLogicalReplicationAndItsOwnSchema(TestNamespace ns) throws Exception {
    try (Connection c = ns.dataSource().getConnection()) {
      var dsl = DSL.using(c);
      assertThat(dsl.fetchValue("show wal_level")).isEqualTo("logical");
      assertThat(dsl.fetchValue(DSL.field("current_schema()", String.class)))
          .isEqualTo(ns.schema());
    }
  }

  @Test
  void kafkaBrokerTakesAndGivesBackRecords(TestNamespace ns) throws Exception {
    String topic = ns.topic("smoke");
    TestTopics.create(ns.stack().kafkaBootstrap(), topic, 3);
    try (var producer =
        new KafkaProducer<>(
            Map.<String, Object>of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                ns.stack().kafkaBootstrap(),
                ProducerConfig.ACKS_CONFIG,
                "all"),
            new StringSerializer(),
            new StringSerializer())) {
      for (int i = 0; i < 10; i++) {
        producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i));
      }
      producer.flush();
    }
    List<ConsumerRecord<String, String>> seen = new ArrayList<>();
    try (var consumer =
        new KafkaConsumer<>(
            Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, ns.stack().kafkaBootstrap(),
                ConsumerConfig.GROUP_ID_CONFIG, ns.group("smoke"),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
            new StringDeserializer(),
            new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (seen.size() < 10 && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(seen::add);
      }
    }
    assertThat(seen).hasSize(10);
    assertThat(seen).extracting(ConsumerRecord::value).contains("v0", "v9");
  }
}
