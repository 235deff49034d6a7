package dev.ordinal.relay;

import dev.ordinal.messaging.Preflight;
import dev.ordinal.relay.internal.DebeziumProperties;
import dev.ordinal.relay.internal.KafkaForwarder;
import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tails the outbox table's WAL with an embedded Debezium engine (PostgreSQL connector, pgoutput,
 * outbox EventRouter) and publishes each committed outbox row to {@code
 * <topicPrefix>.<aggregate_type>}, key = aggregate id, headers = message id, event type, aggregate
 * type, occurred-at and trace context.
 *
 * <p>Delivery: at least once, nothing lost. The producer is idempotent with {@code acks=all}; an
 * event counts as processed only when Kafka acknowledged it; the relayed position is stored every
 * {@link RelayConfig#offsetFlushInterval()}, so a crash re-sends at most the events relayed in the
 * last interval (consumers drop them through their inbox). Rolled-back transactions never reach the
 * WAL stream, so they publish nothing.
 *
 * <p>Metrics: {@code ordinal.relay.events} (events acknowledged by Kafka).
 */
public final class OutboxRelay implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);

  private final RelayConfig config;
  private final Counter relayed;
  private final CountDownLatch streaming = new CountDownLatch(1);
  private final CountDownLatch finished = new CountDownLatch(1);
  private final AtomicReference<String> failure = new AtomicReference<>();
  private KafkaProducer<byte[], byte[]> producer;
  private DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
  private ExecutorService executor;

  public OutboxRelay(RelayConfig config, MeterRegistry registry) {
    this.config = config;
    this.relayed =
        Counter.builder("ordinal.relay.events")
            .description("Outbox events acknowledged by Kafka")
            .tag("slot", config.slotName())
            .register(registry);
  }

  /**
   * Checks the database and the broker, then starts streaming on a thread of its own. Call {@link
   * #awaitStreaming(Duration)} before relying on events committed from now on being captured.
   *
   * @throws dev.ordinal.messaging.ConfigurationException when a server is unreachable or unfit
   *     (e.g. {@code wal_level} not logical), with one sentence naming the setting to fix
   */
  public synchronized OutboxRelay start() {
    if (engine != null) {
      throw new IllegalStateException("already started");
    }
    Preflight.checkPostgres(config.db(), true);
    Preflight.checkKafka(config.kafkaBootstrap(), Preflight.DEFAULT_TIMEOUT);
    try {
      Files.createDirectories(config.offsetFile().toAbsolutePath().getParent());
    } catch (IOException e) {
      throw new RelayException(
          "Cannot create the directory of the relay's offset file " + config.offsetFile(), e);
    }
    producer =
        new KafkaProducer<>(producerProps(), new ByteArraySerializer(), new ByteArraySerializer());
    engine =
        DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
            .using(DebeziumProperties.of(config))
            .using(
                new DebeziumEngine.ConnectorCallback() {
                  @Override
                  public void pollingStarted() {
                    streaming.countDown();
                  }
                })
            .using(this::completed)
            .notifying(new KafkaForwarder(producer, config.topicPrefix(), relayed))
            .build();
    executor =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "cdc-relay-" + config.slotName());
              t.setDaemon(false);
              return t;
            });
    executor.execute(engine);
    log.info("CDC relay starting: {}", config);
    return this;
  }

  private Map<String, Object> producerProps() {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.kafkaBootstrap());
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "cdc-relay-" + config.slotName());
    p.putAll(config.kafka());
    return p;
  }

  private void completed(boolean success, String message, Throwable error) {
    if (!success) {
      String reason = error != null ? rootMessage(error) : message;
      failure.set(reason);
      log.error("CDC relay stopped on an error: {}", reason);
    }
    streaming.countDown();
    finished.countDown();
  }

  /**
   * Waits until the engine streams from its slot: events committed from then on are captured.
   *
   * @throws RelayException when the engine stopped instead, or did not stream in time
   */
  public void awaitStreaming(Duration timeout) throws InterruptedException {
    if (!streaming.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new RelayException("The CDC relay did not start streaming within " + timeout);
    }
    String error = failure.get();
    if (error != null) {
      throw new RelayException("The CDC relay could not start: " + error);
    }
  }

  /** Events acknowledged by Kafka since start. */
  public long relayed() {
    return (long) relayed.count();
  }

  /** True until the engine stops, by {@link #close()} or on an error. */
  public boolean isRunning() {
    return engine != null && finished.getCount() > 0;
  }

  /**
   * Stops after in-flight batches are acknowledged and the offset is stored; a second call does
   * nothing.
   */
  @Override
  public synchronized void close() {
    if (engine == null || executor == null) {
      return;
    }
    try {
      engine.close();
    } catch (IOException | RuntimeException e) {
      log.warn("Closing the Debezium engine: {}", rootMessage(e));
    }
    executor.shutdown();
    try {
      if (!executor.awaitTermination(30, TimeUnit.SECONDS)) {
        executor.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    producer.close(Duration.ofSeconds(10));
    executor = null;
  }

  /** The innermost message, with anything that looks like a password masked. */
  static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    return m.replaceAll("(?i)(password\\S*?\\s*[=:]\\s*)\\S+", "$1***");
  }
}
