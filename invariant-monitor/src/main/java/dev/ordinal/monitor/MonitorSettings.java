package dev.ordinal.monitor;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.runtime.ManagementSettings;
import java.util.Map;
import java.util.Objects;

/**
 * Everything the monitor process ({@link MonitorApp}) is started with.
 *
 * @param kafkaBootstrap Kafka bootstrap servers
 * @param monitor what is watched and the deadlines
 * @param kafka pass-through Kafka Streams properties ({@code state.dir}, ...), applied last
 * @param management where health and metrics are served
 */
public record MonitorSettings(
    String kafkaBootstrap,
    MonitorConfig monitor,
    Map<String, Object> kafka,
    ManagementSettings management) {
  public static final int DEFAULT_MANAGEMENT_PORT = 9413;

  public MonitorSettings {
    if (kafkaBootstrap == null || kafkaBootstrap.isBlank()) {
      throw new ConfigurationException(
          "The monitor needs Kafka bootstrap servers: set ORDINAL_KAFKA_BOOTSTRAP.");
    }
    Objects.requireNonNull(monitor, "monitor");
    kafka = kafka == null ? Map.of() : Map.copyOf(kafka);
    management =
        management == null ? ManagementSettings.local(DEFAULT_MANAGEMENT_PORT) : management;
  }
}
