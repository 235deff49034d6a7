package dev.ordinal.relay;

import static dev.ordinal.messaging.ConfigurationException.check;

import dev.ordinal.messaging.ConfigChecks;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.ContractHeaders;
import dev.ordinal.messaging.kafka.HeaderFormat;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.runtime.ManagementSettings;
import dev.ordinal.runtime.ServiceSettingsBuilder;
import dev.ordinal.runtime.settings.Check;
import dev.ordinal.runtime.settings.Setting;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * Everything a relay process ({@link RelayApp}) is started with. One process relays the outbox of
 * each schema in {@code schemas}, each with a slot, publication and leader lock of its own ({@code
 * ordinal_<schema>} unless {@code slot}/{@code publication} name them, which only one schema may).
 * Each setting is written once, in {@link #ALL}; build with {@link #builder}, change with {@link
 * #toBuilder()}. The compact constructor checks each setting; {@link Builder#build()} then builds
 * (and so checks) each outbox's {@link RelayConfig}: each problem is one {@link
 * ConfigurationException} sentence naming the option, before anything starts.
 *
 * @param db the database holding the outboxes; the role needs LOGIN REPLICATION (see {@link
 *     RelaySetup})
 * @param kafkaClients the Kafka cluster and the user's client properties
 * @param schemas the schemas whose {@code outbox} table is relayed
 * @param outboxTable the outbox table of each schema: Ordinal's own unless a team's
 * @param topicPrefix events go to {@code <prefix>.<aggregate_type>}
 * @param headerFormat the events' headers: Ordinal's, CloudEvents' or both
 * @param slot the replication slot, for one schema only; null for {@code ordinal_<schema>}
 * @param publication the publication, for one schema only; null for {@code ordinal_<schema>}
 * @param createPublication create the publication when missing (needs table ownership)
 * @param heartbeat WAL heartbeat interval; zero turns it off
 * @param offsetFlush how often the relayed position is stored
 * @param instanceId this relay's name in logs and metrics; null for a random one
 * @param management where health and metrics are served
 * @param skipEvents outbox row ids passed over without publishing ({@link
 *     RelayConfig#skipEvents()}); empty normally
 * @param topicDurability replication factor and {@code min.insync.replicas} of the topics the relay
 *     creates (capped by the brokers present)
 * @param leaderLease how long a leader that stops answering keeps the lead ({@link
 *     RelayConfig#leaderLease()})
 * @param topicPartitions partitions of the topics the relay creates
 * @param allowUnguardedStandbys publish although a failover could lose what was published ({@link
 *     RelayConfig#allowUnguardedStandbys()})
 * @param mode CDC (the WAL) or polling (the table, {@link PollingRelay}); the options of the other
 *     mode are refused
 * @param pollInterval polling mode: the wait after a batch that was not full
 * @param batchSize polling mode: rows claimed per batch
 * @param lease polling mode: how long a claimed batch belongs to the instance
 */
public record RelaySettings(
    DatabaseSettings db,
    KafkaClients kafkaClients,
    List<String> schemas,
    OutboxTable outboxTable,
    String topicPrefix,
    HeaderFormat headerFormat,
    String slot,
    String publication,
    boolean createPublication,
    Duration heartbeat,
    Duration offsetFlush,
    String instanceId,
    ManagementSettings management,
    Set<UUID> skipEvents,
    Topics.Durability topicDurability,
    Duration leaderLease,
    int topicPartitions,
    boolean allowUnguardedStandbys,
    RelayMode mode,
    Duration pollInterval,
    int batchSize,
    Duration lease) {

  public static final String DEFAULT_SCHEMA = "orders";
  public static final String DEFAULT_TOPIC_PREFIX = Topics.DEFAULT_PREFIX;
  public static final int DEFAULT_MANAGEMENT_PORT = 9411;

  public static final Setting<List<String>> SCHEMAS =
      Setting.list(
          "schema",
          String.class,
          s -> s,
          List.of(DEFAULT_SCHEMA),
          "none",
          "Schema(s) of the outbox tables, comma-separated or repeated: order-service's 'orders'"
              + " and billing's 'billing'",
          l ->
              l.isEmpty()
                  ? "must name a schema"
                  : l.stream().distinct().count() != l.size()
                      ? "names a schema twice: " + l
                      : null);
  public static final Setting<String> TOPIC_PREFIX = RelayConfig.TOPIC_PREFIX;
  public static final Setting<String> SLOT = RelayConfig.SLOT;
  public static final Setting<String> PUBLICATION = RelayConfig.PUBLICATION;
  public static final Setting<String> INSTANCE_ID = RelayConfig.INSTANCE_ID;
  public static final Setting<Boolean> CREATE_PUBLICATION = RelayConfig.CREATE_PUBLICATION;
  public static final Setting<Duration> HEARTBEAT = RelayConfig.HEARTBEAT;
  public static final Setting<Duration> OFFSET_FLUSH_INTERVAL = RelayConfig.OFFSET_FLUSH_INTERVAL;
  public static final Setting<List<UUID>> SKIP_EVENTS = RelayConfig.SKIP_EVENTS;
  public static final Setting<Integer> REPLICATION_FACTOR = Topics.REPLICATION_FACTOR;
  public static final Setting<Integer> MIN_INSYNC_REPLICAS = Topics.MIN_INSYNC_REPLICAS;
  public static final Setting<Integer> PARTITIONS = Topics.PARTITIONS;
  public static final Setting<Duration> LEADER_LEASE = RelayConfig.LEADER_LEASE;
  public static final Setting<Boolean> ALLOW_UNGUARDED_STANDBYS =
      RelayConfig.ALLOW_UNGUARDED_STANDBYS;
  public static final Setting<HeaderFormat> HEADERS = ContractHeaders.FORMAT;
  public static final Setting<String> OUTBOX_TABLE = OutboxTable.TABLE;
  public static final Setting<List<String>> OUTBOX_COLUMNS = OutboxTable.COLUMNS;
  public static final Setting<OutboxTable.PayloadType> PAYLOAD_TYPE = OutboxTable.PAYLOAD_TYPE;
  public static final Setting<RelayMode> MODE =
      Setting.choice(
          "mode",
          RelayMode.class,
          RelayMode.CDC,
          "cdc reads the outbox's inserts from the WAL (wal_level=logical, a REPLICATION role; one"
              + " instance streams, the others stand by; commit order per outbox); polling reads"
              + " the table with leases (neither needed; instances share the work; order per"
              + " aggregate; marks rows dispatched for --outbox-retention after-dispatch)");
  public static final Setting<Duration> POLL_INTERVAL =
      Setting.duration(
          "poll-interval",
          PollingRelayConfig.DEFAULT_POLL_INTERVAL,
          "Polling mode: the wait after a batch that was not full, about the latency of an idle"
              + " relay",
          Check.positive());
  public static final Setting<Integer> BATCH_SIZE =
      Setting.integer(
          "batch-size",
          PollingRelayConfig.DEFAULT_BATCH_SIZE,
          "Polling mode: outbox rows claimed per batch",
          Check.range(1, PollingRelayConfig.MAX_BATCH_SIZE));
  public static final Setting<Duration> LEASE =
      Setting.duration(
          "lease",
          PollingRelayConfig.DEFAULT_LEASE,
          "Polling mode: how long a claimed batch belongs to one instance; longer than the"
              + " producer's delivery.timeout.ms plus max.block.ms (20s by default)",
          Check.positive());
  public static final Setting<Integer> MANAGEMENT_PORT =
      ManagementSettings.portSetting(DEFAULT_MANAGEMENT_PORT);
  public static final Setting<String> MANAGEMENT_HOST = ManagementSettings.HOST;

  /** Where the relay reads and writes: the settings its recovery commands share with it. */
  public static final List<Setting<?>> TARGET =
      List.of(SCHEMAS, TOPIC_PREFIX, SLOT, PUBLICATION, OUTBOX_TABLE, OUTBOX_COLUMNS, PAYLOAD_TYPE);

  /** What a connector on Kafka Connect is configured from ({@link ConnectorConfig}). */
  public static final List<Setting<?>> CONNECT =
      List.of(
          SCHEMAS,
          TOPIC_PREFIX,
          SLOT,
          PUBLICATION,
          CREATE_PUBLICATION,
          HEARTBEAT,
          PARTITIONS,
          REPLICATION_FACTOR,
          MIN_INSYNC_REPLICAS,
          OUTBOX_TABLE,
          OUTBOX_COLUMNS,
          PAYLOAD_TYPE,
          HEADERS);

  /** Every setting of a relay process: its options, variables and file keys. */
  public static final List<Setting<?>> ALL =
      List.of(
          SCHEMAS,
          TOPIC_PREFIX,
          SLOT,
          PUBLICATION,
          INSTANCE_ID,
          CREATE_PUBLICATION,
          HEARTBEAT,
          OFFSET_FLUSH_INTERVAL,
          SKIP_EVENTS,
          REPLICATION_FACTOR,
          MIN_INSYNC_REPLICAS,
          PARTITIONS,
          LEADER_LEASE,
          ALLOW_UNGUARDED_STANDBYS,
          HEADERS,
          OUTBOX_TABLE,
          OUTBOX_COLUMNS,
          PAYLOAD_TYPE,
          MODE,
          POLL_INTERVAL,
          BATCH_SIZE,
          LEASE,
          MANAGEMENT_PORT,
          MANAGEMENT_HOST);

  /** The settings only the CDC mode has: refused with {@code --mode polling}. */
  static final List<Setting<?>> CDC_ONLY =
      List.of(
          SLOT,
          PUBLICATION,
          CREATE_PUBLICATION,
          HEARTBEAT,
          OFFSET_FLUSH_INTERVAL,
          SKIP_EVENTS,
          LEADER_LEASE,
          ALLOW_UNGUARDED_STANDBYS);

  /** The settings only the polling mode has: refused with {@code --mode cdc}. */
  static final List<Setting<?>> POLLING_ONLY = List.of(POLL_INTERVAL, BATCH_SIZE, LEASE);

  public RelaySettings {
    Objects.requireNonNull(db, "db");
    Objects.requireNonNull(kafkaClients, "kafkaClients");
    schemas = check(SCHEMAS, schemas == null ? null : List.copyOf(schemas));
    check(TOPIC_PREFIX, topicPrefix);
    check(SLOT, slot);
    check(PUBLICATION, publication);
    if (schemas.size() > 1 && (slot != null || publication != null)) {
      throw new ConfigurationException(
          SLOT.option()
              + " and "
              + PUBLICATION.option()
              + " name the slot of one outbox; with several "
              + SCHEMAS.option()
              + " each gets ordinal_<schema>.");
    }
    check(INSTANCE_ID, instanceId);
    check(HEARTBEAT, heartbeat);
    check(OFFSET_FLUSH_INTERVAL, offsetFlush);
    check(LEADER_LEASE, leaderLease);
    skipEvents = skipEvents == null ? Set.of() : Set.copyOf(skipEvents);
    Objects.requireNonNull(topicDurability, "topicDurability");
    management =
        ManagementSettings.checked(management, MANAGEMENT_PORT, ConfigurationException::new);
    check(MODE, mode);
    check(POLL_INTERVAL, pollInterval);
    check(BATCH_SIZE, batchSize);
    check(LEASE, lease);
    refuseOtherMode(
        mode,
        // slot and publication may be null
        java.util.Arrays.asList(
            slot,
            publication,
            createPublication,
            heartbeat,
            offsetFlush,
            List.copyOf(skipEvents),
            leaderLease,
            allowUnguardedStandbys),
        List.of(pollInterval, batchSize, lease));
  }

  /** A setting of the other mode given a value other than its default: one sentence. */
  private static void refuseOtherMode(RelayMode mode, List<Object> cdc, List<Object> polling) {
    List<Setting<?>> other = mode == RelayMode.POLLING ? CDC_ONLY : POLLING_ONLY;
    List<Object> values = mode == RelayMode.POLLING ? cdc : polling;
    for (int i = 0; i < other.size(); i++) {
      Object given = values.get(i);
      Object fallback = other.get(i).defaultValue();
      boolean isDefault =
          given == null
              || given.equals(fallback)
              || (given instanceof List<?> l && l.isEmpty() && fallback == null);
      if (!isDefault) {
        throw new ConfigurationException(
            other.get(i).option()
                + " is an option of the "
                + (mode == RelayMode.POLLING ? "cdc" : "polling")
                + " relay, not of --mode "
                + MODE.format(mode)
                + ": remove it, or choose the other --mode.");
      }
    }
  }

  /** One schema, the defaults for everything else. */
  public static RelaySettings of(DatabaseSettings db, String kafkaBootstrap, String schema) {
    return builder(db, kafkaBootstrap).schemas(List.of(schema)).build();
  }

  /** Every setting its default, on these servers, with no Kafka client properties of the user's. */
  public static Builder builder(DatabaseSettings db, String kafkaBootstrap) {
    return builder(db, KafkaClients.of(ConfigChecks.kafkaBootstrap(kafkaBootstrap, "The relay")));
  }

  /** Every setting its default, on these servers. */
  public static Builder builder(DatabaseSettings db, KafkaClients kafkaClients) {
    return new Builder(db, kafkaClients);
  }

  /** The Kafka bootstrap servers. */
  public String kafkaBootstrap() {
    return kafkaClients.bootstrapServers();
  }

  /** A copy to change. */
  public Builder toBuilder() {
    return builder(db, kafkaClients)
        .schemas(schemas)
        .topicPrefix(topicPrefix)
        .slot(slot, publication)
        .createPublication(createPublication)
        .heartbeat(heartbeat)
        .offsetFlush(offsetFlush)
        .instanceId(instanceId)
        .management(management)
        .skipEvents(skipEvents)
        .topicDurability(topicDurability)
        .leaderLease(leaderLease)
        .topicPartitions(topicPartitions)
        .allowUnguardedStandbys(allowUnguardedStandbys)
        .headerFormat(headerFormat)
        .outboxTable(outboxTable)
        .polling(mode, pollInterval, batchSize, lease);
  }

  /** The polling relay configuration of {@code schema}'s outbox ({@code --mode polling}). */
  public PollingRelayConfig pollingConfig(String schema) {
    return PollingRelayConfig.builder(db.withSchema(schema), kafkaClients, topicPrefix)
        // the instance's name in leases and metrics, one per outbox
        .instanceId(instanceId == null ? null : instanceId + "-" + schema)
        .pollInterval(pollInterval)
        .batchSize(batchSize)
        .lease(lease)
        .topics(topicPartitions, topicDurability)
        .outbox(schema, outboxTable, headerFormat)
        .build();
  }

  /** The relay configuration of {@code schema}'s outbox. */
  public RelayConfig.Builder config(String schema) {
    RelayConfig.Builder b =
        RelayConfig.builder(db.withSchema(schema), kafkaClients, schema, topicPrefix)
            .slot(slot, publication, false)
            .createPublication(createPublication)
            .heartbeatInterval(heartbeat)
            .offsetFlushInterval(offsetFlush)
            .skipEvents(skipEvents)
            .topicDurability(topicDurability)
            .leaderLease(leaderLease)
            .topicPartitions(topicPartitions)
            .allowUnguardedStandbys(allowUnguardedStandbys)
            .outbox(outboxTable, headerFormat);
    if (instanceId != null) {
      b.instanceId(instanceId);
    }
    return b;
  }

  /** Each outbox's relay configuration, in the order of {@link #schemas()}, built (and checked). */
  public List<RelayConfig> configs() {
    List<RelayConfig> configs = new ArrayList<>();
    for (String schema : schemas) {
      configs.add(config(schema).build());
    }
    return configs;
  }

  /** Builds {@link RelaySettings}; a setting not set takes its default ({@link #ALL}). */
  public static final class Builder extends ServiceSettingsBuilder<Builder> {
    private final DatabaseSettings db;
    private final KafkaClients kafkaClients;

    private Builder(DatabaseSettings db, KafkaClients kafkaClients) {
      super(ALL, MANAGEMENT_PORT);
      this.db = db;
      this.kafkaClients = kafkaClients;
    }

    public Builder schemas(List<String> s) {
      return set(SCHEMAS, s);
    }

    public Builder topicPrefix(String p) {
      return set(TOPIC_PREFIX, p);
    }

    /** The slot and publication of the one outbox (null: {@code ordinal_<schema>}). */
    public Builder slot(String s, String p) {
      return set(SLOT, s).set(PUBLICATION, p);
    }

    public Builder createPublication(boolean create) {
      return set(CREATE_PUBLICATION, create);
    }

    public Builder heartbeat(Duration d) {
      return set(HEARTBEAT, d);
    }

    public Builder offsetFlush(Duration d) {
      return set(OFFSET_FLUSH_INTERVAL, d);
    }

    public Builder instanceId(String id) {
      return set(INSTANCE_ID, id);
    }

    /** Passes over the outbox rows {@code ids} without publishing them. */
    public Builder skipEvents(Set<UUID> ids) {
      return set(SKIP_EVENTS, List.copyOf(ids));
    }

    /** Creates topics with {@code d} (capped by the brokers present). */
    public Builder topicDurability(Topics.Durability d) {
      return set(REPLICATION_FACTOR, d.replicationFactor())
          .set(MIN_INSYNC_REPLICAS, d.minInsyncReplicas());
    }

    /** A leader that stops answering keeps the lead for {@code d}. */
    public Builder leaderLease(Duration d) {
      return set(LEADER_LEASE, d);
    }

    /** Partitions of the topics the relay creates. */
    public Builder topicPartitions(int n) {
      return set(PARTITIONS, n);
    }

    /** Publish although a failover could lose what was published. */
    public Builder allowUnguardedStandbys(boolean allow) {
      return set(ALLOW_UNGUARDED_STANDBYS, allow);
    }

    /** Ordinal's headers, CloudEvents' or both. */
    public Builder headerFormat(HeaderFormat f) {
      return set(HEADERS, f);
    }

    /** A team's own outbox table in each schema. */
    public Builder outboxTable(OutboxTable t) {
      return set(OUTBOX_TABLE, t.table())
          .set(OUTBOX_COLUMNS, t.renames())
          .set(PAYLOAD_TYPE, t.payloadType());
    }

    /** The mode and the polling mode's settings (those of the CDC mode are the defaults). */
    public Builder polling(RelayMode mode, Duration pollInterval, int batchSize, Duration lease) {
      return set(MODE, mode)
          .set(POLL_INTERVAL, pollInterval)
          .set(BATCH_SIZE, batchSize)
          .set(LEASE, lease);
    }

    /**
     * The settings, with each outbox's {@link RelayConfig} built once to check it.
     *
     * @throws ConfigurationException naming the first setting that is wrong
     */
    public RelaySettings build() {
      RelaySettings settings =
          new RelaySettings(
              db,
              kafkaClients,
              values.get(SCHEMAS),
              OutboxTable.of(
                  values.get(OUTBOX_TABLE), values.get(OUTBOX_COLUMNS), values.get(PAYLOAD_TYPE)),
              values.get(TOPIC_PREFIX),
              values.get(HEADERS),
              values.get(SLOT),
              values.get(PUBLICATION),
              values.get(CREATE_PUBLICATION),
              values.get(HEARTBEAT),
              values.get(OFFSET_FLUSH_INTERVAL),
              values.get(INSTANCE_ID),
              management(),
              Set.copyOf(values.get(SKIP_EVENTS)),
              new Topics.Durability(
                  values.get(REPLICATION_FACTOR), values.get(MIN_INSYNC_REPLICAS)),
              values.get(LEADER_LEASE),
              values.get(PARTITIONS),
              values.get(ALLOW_UNGUARDED_STANDBYS),
              values.get(MODE),
              values.get(POLL_INTERVAL),
              values.get(BATCH_SIZE),
              values.get(LEASE));
      if (settings.mode() == RelayMode.POLLING) {
        settings.schemas().forEach(settings::pollingConfig);
      } else {
        settings.configs();
      }
      return settings;
    }
  }
}
