package dev.ordinal.lab.bench;

import dev.ordinal.messaging.kafka.MessageHeaders;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A Kafka consumer on a thread of its own that notes when each message id first arrives ({@link
 * Arrival}: right after the poll that returned it, beside the record's timestamp). It reads every
 * partition of one topic from the beginning, without a consumer group.
 */
final class Receiver implements AutoCloseable {
  private final Map<String, Arrival> arrivals = new ConcurrentHashMap<>();
  private final CountDownLatch ready = new CountDownLatch(1);
  private final Thread thread;
  private volatile boolean stopping;
  private volatile RuntimeException failure;

  Receiver(String bootstrap, String topic, int partitions) {
    thread = new Thread(() -> run(bootstrap, topic, partitions), "bench-receiver-" + topic);
    thread.setDaemon(true);
    thread.start();
  }

  /** Waits until the consumer has its partitions and positions, so nothing sent later is missed. */
  void awaitReady(Duration timeout) throws InterruptedException {
    if (!ready.await(timeout.toMillis(), TimeUnit.MILLISECONDS) || failure != null) {
      throw new IllegalStateException("The bench consumer did not start", failure);
    }
  }

  /**
   * When a message arrived: {@code System.nanoTime()} and the wall clock (epoch microseconds) right
   * after the poll that returned it, and the record's timestamp (epoch ms; both relays leave it to
   * the moment they hand the record to their producer), so the latency splits at the relay's send
   * across processes.
   */
  record Arrival(long receivedAtNanos, long sentAtMillis, long receivedAtMicros) {}

  /** When {@code messageId} arrived, or null when it has not (yet). */
  Arrival arrival(String messageId) {
    return arrivals.get(messageId);
  }

  /** Whether every one of {@code messageIds} has been received. */
  boolean receivedAll(java.util.Collection<String> messageIds) {
    return arrivals.keySet().containsAll(messageIds);
  }

  private void run(String bootstrap, String topic, int partitions) {
    Map<String, Object> props =
        Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
            bootstrap,
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
            false,
            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
            "earliest",
            ConsumerConfig.CLIENT_ID_CONFIG,
            "bench-receiver");
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> assigned = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        assigned.add(new TopicPartition(topic, p));
      }
      consumer.assign(assigned);
      consumer.seekToBeginning(assigned);
      assigned.forEach(tp -> consumer.position(tp, Duration.ofSeconds(30)));
      ready.countDown();
      while (!stopping) {
        var records = consumer.poll(Duration.ofMillis(100));
        long now = System.nanoTime();
        long wallMicros = epochMicros();
        for (ConsumerRecord<byte[], byte[]> r : records) {
          MessageHeaders.get(r.headers(), MessageHeaders.MESSAGE_ID)
              .ifPresent(
                  id -> arrivals.putIfAbsent(id, new Arrival(now, r.timestamp(), wallMicros)));
        }
      }
    } catch (RuntimeException e) {
      failure = e;
      ready.countDown();
    }
  }

  /** The wall clock in microseconds since the epoch (the JDK's clock has that resolution here). */
  static long epochMicros() {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
  }

  @Override
  public void close() throws InterruptedException {
    stopping = true;
    thread.join(Duration.ofSeconds(10).toMillis());
  }
}
