package dev.ordinal.messaging.kafka;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClient;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Kafka clients whose own metrics are bound to a registry ({@link KafkaClientMetrics}: {@code
 * kafka_producer_*}, {@code kafka_consumer_*}, {@code kafka_admin_client_*}, tagged with the client
 * id) from creation to close; closing the client removes its meters, so a client made again under
 * the same id reports its own figures.
 */
final class MeteredClients {
  private MeteredClients() {}

  static <K, V> KafkaProducer<K, V> producer(
      Map<String, Object> props, Serializer<K> keys, Serializer<V> values, MeterRegistry r) {
    return new Producer<>(props, keys, values, r);
  }

  static <K, V> KafkaConsumer<K, V> consumer(
      Map<String, Object> props, Deserializer<K> keys, Deserializer<V> values, MeterRegistry r) {
    return new Consumer<>(props, keys, values, r);
  }

  /** An admin client whose {@code close} methods also remove its meters. */
  static Admin admin(Map<String, Object> props, MeterRegistry r) {
    AdminClient admin = AdminClient.create(props);
    KafkaClientMetrics meters = bound(new KafkaClientMetrics(admin), r);
    return (Admin)
        Proxy.newProxyInstance(
            Admin.class.getClassLoader(),
            new Class<?>[] {Admin.class},
            (proxy, method, args) -> {
              try {
                return method.invoke(admin, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              } finally {
                if (method.getName().equals("close")) {
                  meters.close();
                }
              }
            });
  }

  private static KafkaClientMetrics bound(KafkaClientMetrics m, MeterRegistry r) {
    m.bindTo(r);
    return m;
  }

  private static final class Producer<K, V> extends KafkaProducer<K, V> {
    private final KafkaClientMetrics meters;

    Producer(Map<String, Object> p, Serializer<K> k, Serializer<V> v, MeterRegistry r) {
      super(p, k, v);
      meters = bound(new KafkaClientMetrics(this), r);
    }

    @Override
    public void close(Duration timeout) {
      try {
        super.close(timeout);
      } finally {
        meters.close();
      }
    }
  }

  private static final class Consumer<K, V> extends KafkaConsumer<K, V> {
    private final KafkaClientMetrics meters;

    Consumer(Map<String, Object> p, Deserializer<K> k, Deserializer<V> v, MeterRegistry r) {
      super(p, k, v);
      meters = bound(new KafkaClientMetrics(this), r);
    }

    @Override
    public void close() {
      try {
        super.close();
      } finally {
        meters.close();
      }
    }

    @Override
    @SuppressWarnings("deprecation")
    public void close(Duration timeout) {
      try {
        super.close(timeout);
      } finally {
        meters.close();
      }
    }

    @Override
    public void close(CloseOptions options) {
      try {
        super.close(options);
      } finally {
        meters.close();
      }
    }
  }
}
