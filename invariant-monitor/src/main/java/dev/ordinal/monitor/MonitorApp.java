package dev.ordinal.monitor;

import dev.ordinal.messaging.Servers;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.runtime.LoopContext;
import dev.ordinal.runtime.ServiceAppBase;
import java.time.Clock;
import java.time.Duration;
import org.apache.kafka.streams.KafkaStreams;

/**
 * The live invariant monitor as a process, the only place it is put together: {@link #start()}
 * waits for Kafka, then runs the Kafka Streams application as the supervised loop {@code
 * invariant-monitor} (a Streams instance that fails is closed and a new one started after a
 * backoff), with health and metrics ({@code ordinal_monitor_alerts_total{kind}}) on the management
 * port.
 */
public final class MonitorApp extends ServiceAppBase {
  public static final String SERVICE = "monitor";
  public static final String LOOP = "invariant-monitor";
  static final Duration STATE_CHECK_INTERVAL = Duration.ofMillis(500);

  private final MonitorSettings settings;

  public MonitorApp(MonitorSettings settings) {
    super(SERVICE, settings.management(), Clock.systemUTC());
    this.settings = settings;
  }

  /** Starts with {@link #MonitorApp(MonitorSettings)}; closes what it opened on failure. */
  public static MonitorApp start(MonitorSettings settings) {
    return startOrClose(new MonitorApp(settings));
  }

  /** Waits for Kafka, then starts the monitor's loop. */
  @Override
  public synchronized MonitorApp start() {
    runtime.awaitServer(Servers.kafka(kafka()));
    runtime.supervisor().start(LOOP, this::run);
    runtime.started();
    return this;
  }

  /** One Kafka Streams instance, from start to failure or stop. */
  private void run(LoopContext ctx) {
    try (InvariantMonitor monitor =
        new InvariantMonitor(settings.monitor(), kafka(), settings.kafka(), runtime.registry())) {
      monitor.start();
      while (ctx.running()) {
        KafkaStreams.State s = monitor.state();
        if (s == KafkaStreams.State.ERROR
            || s == KafkaStreams.State.PENDING_ERROR
            || s == KafkaStreams.State.NOT_RUNNING
            || s == KafkaStreams.State.PENDING_SHUTDOWN) {
          RuntimeException why = monitor.failure();
          throw why != null ? why : new IllegalStateException("Kafka Streams stopped: state " + s);
        }
        if (s == KafkaStreams.State.RUNNING) {
          ctx.healthy();
        }
        ctx.await(STATE_CHECK_INTERVAL);
      }
    }
  }

  /** The Kafka clients of the monitor: client ids {@code ordinal-monitor-...}. */
  private KafkaClients kafka() {
    return settings.kafkaClients().forService(SERVICE, null).withMetrics(runtime.registry());
  }

  public MonitorSettings settings() {
    return settings;
  }
}
