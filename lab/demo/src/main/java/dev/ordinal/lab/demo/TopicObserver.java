package dev.ordinal.lab.demo;

import dev.ordinal.contracts.AggregateType;
import dev.ordinal.contracts.EventCodec;
import dev.ordinal.contracts.EventType;
import dev.ordinal.contracts.OrderCancelledV1;
import dev.ordinal.messaging.kafka.MessageHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the order topics from where they end when it starts, outside any consumer group: which
 * message ids reached Kafka, and each order's event types in topic order. While asked to, it also
 * plays the misbehaving network: some {@code OrderPlaced} records are produced again unchanged (a
 * redelivery: same message id) and some again under a new message id (a re-publication: same order,
 * new id). Neither may change what billing does.
 */
final class TopicObserver implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(TopicObserver.class);

  private final KafkaConsumer<String, String> consumer;
  private final KafkaProducer<String, String> producer;
  private final Duplicates duplicates;
  private final Thread thread;
  private volatile boolean stop;
  private volatile boolean misbehave = true;

  // guarded by this
  private final Set<String> seenIds = new HashSet<>();
  private final Set<String> republishedIds = new HashSet<>();
  private final Map<String, List<String>> typesByKey = new HashMap<>();
  private long records;
  private final AtomicLong redelivered = new AtomicLong();
  private final AtomicLong republished = new AtomicLong();
  private final AtomicLong sendFailures = new AtomicLong();

  /** The duplicates the observer makes while it misbehaves. */
  enum Duplicate {
    NONE,
    /** produced again unchanged: same message id */
    REDELIVERY,
    /** produced again under a new message id */
    REPUBLICATION
  }

  /**
   * Which {@code OrderPlaced} records are produced again: one draw of {@code random} per record
   * makes a redelivery with probability {@code redeliverShare}, else a re-publication with
   * probability {@code republishShare}.
   */
  record Duplicates(RandomGenerator random, double redeliverShare, double republishShare) {
    Duplicate draw() {
      double u = random.nextDouble();
      if (u < redeliverShare) {
        return Duplicate.REDELIVERY;
      }
      return u < redeliverShare + republishShare ? Duplicate.REPUBLICATION : Duplicate.NONE;
    }
  }

  TopicObserver(String bootstrap, List<String> topics, Duplicates duplicates) {
    this.duplicates = duplicates;
    consumer =
        new KafkaConsumer<>(
            clientConfig(bootstrap, ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
            new StringDeserializer(),
            new StringDeserializer());
    producer =
        new KafkaProducer<>(
            clientConfig(
                bootstrap, ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, 0),
            new StringSerializer(),
            new StringSerializer());
    List<TopicPartition> partitions = new ArrayList<>();
    for (String topic : topics) {
      consumer
          .partitionsFor(topic)
          .forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
    }
    consumer.assign(partitions);
    consumer.seekToEnd(partitions);
    // resolve the positions now: what is written from here on is this run's
    partitions.forEach(consumer::position);
    thread = new Thread(this::loop, "ordinal-demo-observer");
    thread.setDaemon(true);
    thread.start();
  }

  /** A Kafka client's configuration: {@code bootstrap}, then {@code more} as key, value pairs. */
  private static Map<String, Object> clientConfig(String bootstrap, Object... more) {
    Map<String, Object> config = new HashMap<>();
    config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    for (int i = 0; i < more.length; i += 2) {
      config.put((String) more[i], more[i + 1]);
    }
    return config;
  }

  private void loop() {
    try {
      while (!stop) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
          seen(r);
        }
      }
    } catch (WakeupException e) {
      // closing
    } catch (RuntimeException e) {
      log.error("The demo's topic observer stopped", e);
    }
  }

  private void seen(ConsumerRecord<String, String> r) {
    String id = MessageHeaders.get(r.headers(), MessageHeaders.MESSAGE_ID).orElse("?");
    String type = MessageHeaders.get(r.headers(), MessageHeaders.EVENT_TYPE).orElse("?");
    boolean first;
    boolean original;
    synchronized (this) {
      records++;
      first = seenIds.add(id);
      original = !republishedIds.contains(id);
      typesByKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(type);
    }
    if (!misbehave || !first || !original || !EventType.ORDER_PLACED.wireName().equals(type)) {
      return;
    }
    Duplicate duplicate = duplicates.draw();
    if (duplicate == Duplicate.REDELIVERY) {
      send(
          new ProducerRecord<>(r.topic(), r.partition(), r.key(), r.value(), r.headers()),
          redelivered);
    } else if (duplicate == Duplicate.REPUBLICATION) {
      String newId = UUID.randomUUID().toString();
      RecordHeaders headers = new RecordHeaders();
      for (Header h : r.headers()) {
        if (!h.key().equals(MessageHeaders.MESSAGE_ID)) {
          headers.add(h);
        }
      }
      headers.add(MessageHeaders.MESSAGE_ID, newId.getBytes(StandardCharsets.UTF_8));
      synchronized (this) {
        republishedIds.add(newId);
      }
      send(
          new ProducerRecord<>(r.topic(), r.partition(), r.key(), r.value(), headers), republished);
    }
  }

  /** Sends an injected duplicate; {@code sent} counts it once Kafka has it. */
  private void send(ProducerRecord<String, String> record, AtomicLong sent) {
    producer.send(
        record,
        (meta, e) -> {
          if (e == null) {
            sent.incrementAndGet();
          } else {
            sendFailures.incrementAndGet();
            log.warn("A duplicate the demo injected was not sent", e);
          }
        });
  }

  /**
   * Sends an {@code OrderCancelled} and then the {@code OrderPlaced} of {@code order} (a new order
   * billing has not seen), each under a new message id, one after the other on the order's
   * partition: the out-of-order delivery a polling relay or a re-driven dead letter produces. Their
   * ids count as made by this observer. Waits until Kafka has both.
   */
  void cancelBeforePlace(String topic, UUID order, String placedPayload) throws Exception {
    String key = order.toString();
    for (String[] event :
        new String[][] {
          {
            EventType.ORDER_CANCELLED.wireName(),
            EventCodec.toJson(new OrderCancelledV1(order, "out of order", null))
          },
          {EventType.ORDER_PLACED.wireName(), placedPayload}
        }) {
      String id = UUID.randomUUID().toString();
      RecordHeaders headers = new RecordHeaders();
      headers.add(MessageHeaders.MESSAGE_ID, id.getBytes(StandardCharsets.UTF_8));
      headers.add(MessageHeaders.EVENT_TYPE, event[0].getBytes(StandardCharsets.UTF_8));
      headers.add(
          MessageHeaders.AGGREGATE_TYPE,
          AggregateType.ORDER.wireName().getBytes(StandardCharsets.UTF_8));
      synchronized (this) {
        republishedIds.add(id);
      }
      producer.send(new ProducerRecord<>(topic, null, key, event[1], headers)).get();
    }
  }

  /** No more injected duplicates; waits until the ones sent are on Kafka. */
  void stopMisbehaving() {
    misbehave = false;
    producer.flush();
  }

  long redelivered() {
    return redelivered.get();
  }

  long republished() {
    return republished.get();
  }

  long sendFailures() {
    return sendFailures.get();
  }

  /** Records read so far, duplicates included. */
  synchronized long records() {
    return records;
  }

  /** Distinct message ids read so far, the injected re-publications included. */
  synchronized Set<String> messageIds() {
    return new HashSet<>(seenIds);
  }

  /** Message ids of the re-publications this observer made. */
  synchronized Set<String> republishedIds() {
    return new HashSet<>(republishedIds);
  }

  /** Distinct message ids the relay wrote (the re-publications left out). */
  synchronized int relayedIds() {
    return seenIds.size() - republishedIds.size();
  }

  /** Event types by record key (the order id), in topic order, duplicates included. */
  synchronized Map<String, List<String>> typesByKey() {
    Map<String, List<String>> copy = new HashMap<>();
    typesByKey.forEach((k, v) -> copy.put(k, List.copyOf(v)));
    return copy;
  }

  @Override
  public void close() throws InterruptedException {
    stop = true;
    consumer.wakeup();
    thread.join(Duration.ofSeconds(10).toMillis());
    consumer.close(Duration.ofSeconds(2));
    producer.close(Duration.ofSeconds(5));
  }
}
