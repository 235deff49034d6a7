package dev.ordinal.monitor;

import dev.ordinal.messaging.ConfigChecks;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.runtime.ManagementSettings;
import dev.ordinal.runtime.ServiceSettingsBuilder;
import dev.ordinal.runtime.settings.Setting;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything the monitor process ({@link MonitorApp}) is started with, checked once by the compact
 * constructor: each problem is one {@link ConfigurationException} sentence naming the option, in
 * the words of its {@link Setting}. Each setting is written once, in {@link #ALL}; build with
 * {@link #builder}, change with {@link #toBuilder()}.
 *
 * @param kafkaClients the Kafka cluster and the user's client properties
 * @param topicPrefix the topics watched and written ({@link MonitorConfig#topicPrefix()})
 * @param deadline how long an order may wait for its invoice
 * @param grace how long a gap in a series may stay open
 * @param kafka Kafka Streams properties the caller sets ({@code state.dir}, ...), over the user's
 * @param management where health and metrics are served
 */
public record MonitorSettings(
    KafkaClients kafkaClients,
    String topicPrefix,
    Duration deadline,
    Duration grace,
    Map<String, Object> kafka,
    ManagementSettings management) {
  public static final int DEFAULT_MANAGEMENT_PORT = 9413;

  public static final Setting<String> PREFIX = MonitorConfig.PREFIX;
  public static final Setting<Duration> DEADLINE = MonitorConfig.DEADLINE;
  public static final Setting<Duration> GRACE = MonitorConfig.GRACE;
  public static final Setting<Integer> MANAGEMENT_PORT =
      ManagementSettings.portSetting(DEFAULT_MANAGEMENT_PORT);
  public static final Setting<String> MANAGEMENT_HOST = ManagementSettings.HOST;

  /** Every setting of the monitor: its options, variables and file keys. */
  public static final List<Setting<?>> ALL =
      List.of(PREFIX, DEADLINE, GRACE, MANAGEMENT_PORT, MANAGEMENT_HOST);

  public MonitorSettings {
    Objects.requireNonNull(kafkaClients, "kafkaClients");
    monitor(topicPrefix, deadline, grace);
    kafka = kafka == null ? Map.of() : Map.copyOf(kafka);
    management =
        ManagementSettings.checked(management, MANAGEMENT_PORT, ConfigurationException::new);
  }

  /** What is watched and the deadlines, with the default checking interval and application id. */
  public MonitorConfig monitor() {
    return monitor(topicPrefix, deadline, grace);
  }

  private static MonitorConfig monitor(String prefix, Duration deadline, Duration grace) {
    return MonitorConfig.builder()
        .topicPrefix(prefix)
        .invoiceDeadline(deadline)
        .gapGrace(grace)
        .build();
  }

  /**
   * Every setting its default, on {@code kafkaBootstrap} with no client properties of the user's.
   */
  public static Builder builder(String kafkaBootstrap) {
    return builder(KafkaClients.of(ConfigChecks.kafkaBootstrap(kafkaBootstrap, "The monitor")));
  }

  /** Every setting its default, on the Kafka cluster of {@code kafkaClients}. */
  public static Builder builder(KafkaClients kafkaClients) {
    return new Builder(kafkaClients);
  }

  /** The Kafka bootstrap servers. */
  public String kafkaBootstrap() {
    return kafkaClients.bootstrapServers();
  }

  /** A copy to change. */
  public Builder toBuilder() {
    return builder(kafkaClients)
        .topicPrefix(topicPrefix)
        .deadline(deadline)
        .grace(grace)
        .kafka(kafka)
        .management(management);
  }

  /** Builds {@link MonitorSettings}; a setting not set takes its default ({@link #ALL}). */
  public static final class Builder extends ServiceSettingsBuilder<Builder> {
    private final KafkaClients kafkaClients;
    private Map<String, Object> kafka;

    private Builder(KafkaClients kafkaClients) {
      super(ALL, MANAGEMENT_PORT);
      this.kafkaClients = kafkaClients;
    }

    public Builder topicPrefix(String p) {
      return set(PREFIX, p);
    }

    public Builder deadline(Duration d) {
      return set(DEADLINE, d);
    }

    public Builder grace(Duration d) {
      return set(GRACE, d);
    }

    /** Kafka Streams properties the caller sets, over the user's (not a command-line setting). */
    public Builder kafka(Map<String, Object> properties) {
      kafka = properties;
      return this;
    }

    /**
     * @throws ConfigurationException naming the first setting that is wrong
     */
    public MonitorSettings build() {
      return new MonitorSettings(
          kafkaClients,
          values.get(PREFIX),
          values.get(DEADLINE),
          values.get(GRACE),
          kafka,
          management());
    }
  }
}
