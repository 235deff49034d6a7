package dev.ordinal.monitor;

import dev.ordinal.messaging.ConfigChecks;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.runtime.ManagementSettings;
import dev.ordinal.runtime.ServiceSettingsBuilder;
import dev.ordinal.runtime.settings.Setting;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Everything the monitor process ({@link MonitorApp}) is started with, checked once by the compact
 * constructor: each problem is one {@link ConfigurationException} sentence naming the option, in
 * the words of its {@link Setting}. Each setting is written once, in {@link #ALL}; build with
 * {@link #builder}, change with {@link #toBuilder()}.
 *
 * @param kafkaBootstrap Kafka bootstrap servers
 * @param topicPrefix the topics watched and written ({@link MonitorConfig#topicPrefix()})
 * @param deadline how long an order may wait for its invoice
 * @param grace how long a gap in a series may stay open
 * @param kafka pass-through Kafka Streams properties ({@code state.dir}, ...), applied last
 * @param management where health and metrics are served
 */
public record MonitorSettings(
    String kafkaBootstrap,
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
    ConfigChecks.kafkaBootstrap(kafkaBootstrap, "The monitor");
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

  /** Every setting its default, on {@code kafkaBootstrap}. */
  public static Builder builder(String kafkaBootstrap) {
    return new Builder(kafkaBootstrap);
  }

  /** A copy to change. */
  public Builder toBuilder() {
    return builder(kafkaBootstrap)
        .topicPrefix(topicPrefix)
        .deadline(deadline)
        .grace(grace)
        .kafka(kafka)
        .management(management);
  }

  /** Builds {@link MonitorSettings}; a setting not set takes its default ({@link #ALL}). */
  public static final class Builder extends ServiceSettingsBuilder<Builder> {
    private final String kafkaBootstrap;
    private Map<String, Object> kafka;

    private Builder(String kafkaBootstrap) {
      super(ALL, MANAGEMENT_PORT);
      this.kafkaBootstrap = kafkaBootstrap;
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

    /** Pass-through Kafka Streams properties, applied last (not a command-line setting). */
    public Builder kafka(Map<String, Object> properties) {
      kafka = properties;
      return this;
    }

    /**
     * @throws ConfigurationException naming the first setting that is wrong
     */
    public MonitorSettings build() {
      return new MonitorSettings(
          kafkaBootstrap,
          values.get(PREFIX),
          values.get(DEADLINE),
          values.get(GRACE),
          kafka,
          management());
    }
  }
}
