package dev.ordinal.lab.bench;

import dev.ordinal.lab.bench.BillingConsumerBench.Mode;
import dev.ordinal.messaging.inbox.Envelope;
import dev.ordinal.messaging.inbox.InboxConsumer;
import dev.ordinal.messaging.inbox.InboxConsumerConfig;
import dev.ordinal.messaging.inbox.MessageHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jooq.DSLContext;

/**
 * A bench-only copy of {@link InboxConsumer}'s loop for the comparison: the same consumer settings,
 * one poll's records grouped by partition and key and applied {@code concurrency} groups at a time,
 * one transaction per record running the same handler, offsets committed after the batch. With
 * {@link Mode#LOOP_INBOX} each record's transaction is the real one's ({@link
 * InboxConsumer#applyOnce}: the inbox row with the order's lock, then the handler); without it the
 * lock is taken alone. No dead letters or retries: the bench's records are all well-formed, and a
 * failure ends it.
 */
final class BillingLoop implements AutoCloseable {
  final AtomicLong applied = new AtomicLong();
  private final DSLContext dsl;
  private final MessageHandler handler;
  private final Mode mode;
  private final KafkaConsumer<String, String> consumer;
  private final ExecutorService workers;
  private final Thread thread;
  private volatile boolean running = true;
  private volatile RuntimeException failed;

  BillingLoop(
      DSLContext dsl,
      MessageHandler handler,
      String bootstrap,
      String group,
      String topic,
      int concurrency,
      Mode mode) {
    this.dsl = dsl;
    this.handler = handler;
    this.mode = mode;
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "bench-" + group);
    consumer = new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    consumer.subscribe(List.of(topic));
    workers = Executors.newFixedThreadPool(concurrency);
    thread = new Thread(this::loop, "bench-billing-loop");
    thread.start();
  }

  private void loop() {
    try {
      while (running) {
        ConsumerRecords<String, String> polled =
            consumer.poll(InboxConsumerConfig.DEFAULT_POLL_TIMEOUT);
        if (polled.isEmpty()) {
          continue;
        }
        Map<List<Object>, List<ConsumerRecord<String, String>>> groups = new LinkedHashMap<>();
        Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
        for (TopicPartition tp : polled.partitions()) {
          List<ConsumerRecord<String, String>> rs = polled.records(tp);
          for (ConsumerRecord<String, String> r : rs) {
            groups
                .computeIfAbsent(List.of(tp, Objects.toString(r.key())), k -> new ArrayList<>())
                .add(r);
          }
          commit.put(tp, new OffsetAndMetadata(rs.get(rs.size() - 1).offset() + 1));
        }
        List<Future<?>> batch = new ArrayList<>(groups.size());
        for (List<ConsumerRecord<String, String>> group : groups.values()) {
          batch.add(
              workers.submit(
                  () -> {
                    for (ConsumerRecord<String, String> r : group) {
                      apply(r);
                    }
                  }));
        }
        for (Future<?> f : batch) {
          f.get();
        }
        consumer.commitSync(commit);
      }
    } catch (Exception e) {
      if (running) {
        failed = new IllegalStateException("the bench's consumer loop failed", e);
      }
    } finally {
      consumer.close(Duration.ofSeconds(5));
    }
  }

  private void apply(ConsumerRecord<String, String> record) {
    BillingConsumerBench.apply(dsl, handler, Envelope.of(record), mode);
    applied.incrementAndGet();
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    consumer.wakeup();
    thread.join(TimeUnit.SECONDS.toMillis(30));
    workers.shutdownNow();
    if (failed != null) {
      throw failed;
    }
  }
}
