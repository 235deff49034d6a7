package dev.ordinal.relay.internal;

import dev.ordinal.relay.PoisonRowException;
import dev.ordinal.relay.RelayConfig;
import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One run of the embedded Debezium engine, from start to stop or failure. */
public final class EngineRun implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(EngineRun.class);
  static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);

  private final CountDownLatch streaming = new CountDownLatch(1);
  private final CountDownLatch finished = new CountDownLatch(1);
  private final AtomicReference<String> failure = new AtomicReference<>();
  private final AtomicReference<PoisonRowException> poison = new AtomicReference<>();
  private final DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
  private final ExecutorService executor;

  public EngineRun(RelayConfig config, KafkaForwarder forwarder) {
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
            .notifying(forwarder)
            .build();
    executor =
        Executors.newSingleThreadExecutor(r -> new Thread(r, "cdc-relay-" + config.instanceId()));
    executor.execute(engine);
  }

  private void completed(boolean success, String message, Throwable error) {
    if (!success) {
      PoisonRowException p = poisonIn(error);
      poison.set(p);
      String reason = p != null ? p.getMessage() : error != null ? rootMessage(error) : message;
      failure.set(reason);
      log.error("The Debezium engine stopped on an error: {}", reason);
    }
    streaming.countDown();
    finished.countDown();
  }

  /** True once the engine streams; false when it stopped first or the wait ended. */
  public boolean awaitStreaming(Duration timeout) throws InterruptedException {
    return streaming.await(timeout.toMillis(), TimeUnit.MILLISECONDS)
        && failure.get() == null
        && finished.getCount() > 0;
  }

  public boolean isStreaming() {
    return streaming.getCount() == 0 && finished.getCount() > 0;
  }

  public boolean hasStopped() {
    return finished.getCount() == 0;
  }

  /** Why the engine stopped on its own, if it did. */
  public String failure() {
    return failure.get();
  }

  /** The poison row the engine stopped on, if it did. */
  public PoisonRowException poison() {
    return poison.get();
  }

  private static PoisonRowException poisonIn(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof PoisonRowException p) {
        return p;
      }
    }
    return null;
  }

  /** Stops the engine: in-flight batches finish and the position is stored. Bounded. */
  @Override
  public void close() {
    try {
      engine.close();
    } catch (IOException | RuntimeException e) {
      log.warn("Closing the Debezium engine: {}", rootMessage(e));
    }
    executor.shutdown();
    try {
      if (!executor.awaitTermination(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("The Debezium engine did not stop within {}; interrupting it", STOP_TIMEOUT);
        executor.shutdownNow();
      }
    } catch (InterruptedException e) {
      executor.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  /** The innermost message, with anything that looks like a password masked. */
  public static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    return m.replaceAll("(?i)(password\\S*?\\s*[=:]\\s*)\\S+", "$1***");
  }
}
