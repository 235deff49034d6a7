package dev.ordinal.messaging.inbox.internal;

import dev.ordinal.messaging.inbox.InboxConsumerConfig;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.kafka.Topics;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Sends a record that can never be applied to {@code <topic>.dlq}, as it came (key, value,
 * headers), with the error, the consumer, the original topic, partition and offset and the time in
 * headers ({@link MessageHeaders}{@code .DLQ_*}). Its producer is idempotent ({@code acks=all}) and
 * is made by the consumer's {@link dev.ordinal.messaging.kafka.KafkaClients}, so it connects as the
 * consumer does (servers, security, SASL, SSL); of the properties the consumer's caller sets, those
 * a producer knows by the same name (timeouts) are its own too. Thread-safe: the workers share it.
 */
public final class DeadLetterPublisher implements AutoCloseable {
  /**
   * How long a dead letter's send may take, unless the user's client properties or the consumer's
   * caller set {@code delivery.timeout.ms}: a broker that stays away fails it, and the record is
   * tried again, rather than holding its partition's worker for the producer's default 2 minutes.
   */
  static final Duration SEND_TIMEOUT = Duration.ofSeconds(30);

  private final InboxConsumerConfig config;
  private final Clock clock;
  private final KafkaProducer<String, String> producer;
  private final Set<String> topicsReady = ConcurrentHashMap.newKeySet();
  private final Duration sendTimeout;

  public DeadLetterPublisher(InboxConsumerConfig config, Clock clock) {
    this.config = config;
    this.clock = clock;
    this.producer =
        config
            .clients()
            .producer(
                purpose(config), siteProps(config), new StringSerializer(), new StringSerializer());
    // the producer's own delivery timeout, plus its wait for metadata, bounds the wait
    Map<String, Object> props = producerProps(config);
    this.sendTimeout =
        Duration.ofMillis(
            Long.parseLong(String.valueOf(props.get(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG)))
                + Long.parseLong(String.valueOf(props.get(ProducerConfig.MAX_BLOCK_MS_CONFIG))));
  }

  /** The client id's end of the dead-letter producer of {@code config}'s consumer. */
  static String purpose(InboxConsumerConfig config) {
    return "dlq-" + config.consumerName();
  }

  /**
   * The producer's properties ({@link
   * dev.ordinal.messaging.kafka.KafkaClients#producerProperties}): the user's, then each property
   * the consumer's caller sets that a producer knows by the same name (but interceptors and the
   * client id), idempotence and {@code acks=all}, then the servers and the client id {@code
   * ordinal-...-dlq-<consumer>}.
   */
  static Map<String, Object> producerProps(InboxConsumerConfig config) {
    return config.clients().producerProperties(purpose(config), siteProps(config));
  }

  private static Map<String, Object> siteProps(InboxConsumerConfig config) {
    Set<String> producerNames = ProducerConfig.configNames();
    Map<String, Object> props = new HashMap<>();
    config
        .kafka()
        .forEach(
            (name, value) -> {
              if (producerNames.contains(name)
                  && !name.equals(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG)
                  && !name.equals(ConsumerConfig.CLIENT_ID_CONFIG)) {
                props.put(name, value);
              }
            });
    // bounded waits (SEND_TIMEOUT), unless the user or the caller chose their own
    Map<String, String> users = config.clients().properties();
    bound(props, users, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, SEND_TIMEOUT.toMillis());
    bound(props, users, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
    bound(props, users, ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
    props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    props.put(ProducerConfig.ACKS_CONFIG, "all");
    return props;
  }

  private static void bound(
      Map<String, Object> props, Map<String, String> users, String name, long millis) {
    if (!props.containsKey(name) && !users.containsKey(name)) {
      props.put(name, (int) millis);
    }
  }

  /**
   * Sends {@code record} to its dead-letter topic (created on first use) and waits for the
   * acknowledgement, {@link #SEND_TIMEOUT} at most (or the delivery timeout the user set).
   *
   * @throws Exception when it was not sent in time: the record must be retried
   */
  void publish(ConsumerRecord<String, String> record, String error) throws Exception {
    String dlq = InboxConsumerConfig.deadLetterTopic(record.topic());
    try {
      if (topicsReady.add(dlq)) {
        Topics.ensure(config.clients(), dlq, 1);
      }
      RecordHeaders headers = new RecordHeaders(record.headers().toArray());
      headers.add(MessageHeaders.DLQ_ERROR, MessageHeaders.encode(ErrorKinds.oneLine(error)));
      headers.add(MessageHeaders.DLQ_CONSUMER, MessageHeaders.encode(config.consumerName()));
      headers.add(MessageHeaders.DLQ_TOPIC, MessageHeaders.encode(record.topic()));
      headers.add(
          MessageHeaders.DLQ_PARTITION,
          MessageHeaders.encode(Integer.toString(record.partition())));
      headers.add(MessageHeaders.DLQ_OFFSET, MessageHeaders.encode(Long.toString(record.offset())));
      headers.add(MessageHeaders.DLQ_AT, MessageHeaders.encode(clock.instant().toString()));
      producer
          .send(new ProducerRecord<>(dlq, null, record.key(), record.value(), headers))
          .get(sendTimeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      topicsReady.remove(dlq);
      throw e;
    }
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(5));
  }
}
