package dev.ordinal.testkit;

import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Plain string clients on a test's broker, for writing records and reading them back. */
public final class TestKafka {
  private TestKafka() {}

  /** A producer of string keys and values, with Kafka's defaults otherwise. */
  public static KafkaProducer<String, String> producer(String bootstrap) {
    return new KafkaProducer<>(
        Map.<String, Object>of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
        new StringSerializer(),
        new StringSerializer());
  }

  /** A consumer of string keys and values in no group, to assign partitions and read them. */
  public static KafkaConsumer<String, String> consumer(String bootstrap) {
    return new KafkaConsumer<>(
        Map.<String, Object>of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
        new StringDeserializer(),
        new StringDeserializer());
  }
}
