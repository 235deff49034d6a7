package dev.ordinal.ops.lag;

import dev.ordinal.messaging.Servers;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.runtime.ManagementSettings;
import dev.ordinal.runtime.ServiceRuntime;
import java.time.Clock;

/**
 * {@code ./ordinal lag --watch --metrics-port}'s server, the services' own: the management port of
 * a {@link ServiceRuntime} (service {@code lag}) with {@code /metrics} ({@link LagMetrics} and the
 * JVM's meters), {@code /health/live} and {@code /health/ready} (ready while Kafka answers). It
 * runs no loop: the command samples and updates the metrics.
 */
public final class LagExporter implements AutoCloseable {
  private final ServiceRuntime runtime;
  private final KafkaClients kafka;

  /**
   * Opens the management port and binds {@code metrics} to its registry.
   *
   * @throws dev.ordinal.runtime.PortInUseException when the port is taken
   */
  public LagExporter(ManagementSettings management, KafkaClients kafka, LagMetrics metrics) {
    this.runtime = new ServiceRuntime("lag", management, Clock.systemUTC());
    this.kafka = kafka;
    metrics.bindTo(runtime.registry());
  }

  /** Watches Kafka for readiness (it answered already: the command checked it), then is ready. */
  public LagExporter start() {
    runtime.awaitServer(Servers.kafka(kafka));
    runtime.started();
    return this;
  }

  /** The port it serves on (the one picked when asked for 0). */
  public int managementPort() {
    return runtime.managementPort();
  }

  @Override
  public void close() {
    runtime.close();
  }
}
