package dev.ordinal.relay;

import dev.ordinal.messaging.ConfigChecks;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.HeaderFormat;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.runtime.settings.Check;
import dev.ordinal.runtime.settings.Setting;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * Settings of the CDC relay, validated once. Build with {@link #builder}.
 *
 * @param db the database holding the outbox; the relay's role needs LOGIN REPLICATION, USAGE on the
 *     schema, SELECT on the outbox and read/write on its offsets table (see {@link RelaySetup}); a
 *     URL with several hosts is bound to the primary ({@link DatabaseSettings#forPrimary()}), and
 *     every connection of the relay, the replication stream's included, uses the whole URL
 * @param kafkaClients the Kafka cluster and the user's client properties: the relay's producer and
 *     admin clients are made by it
 * @param outboxSchema schema of the {@code outbox} table
 * @param topicPrefix events go to {@code <topicPrefix>.<aggregate_type>}
 * @param slotName the logical replication slot; one relay streams from it at a time (the others
 *     stand by)
 * @param publicationName the publication on the outbox table
 * @param createPublication let the relay create the publication (needs table ownership); false when
 *     the table owner made it (least privilege)
 * @param offsetStore where the relayed position is kept
 * @param offsetFile the file, for {@link OffsetStore#FILE}
 * @param offsetFlushInterval how often the position is stored (and the slot released); a crash
 *     re-sends at most the events relayed during one interval plus one batch
 * @param pollInterval how long the engine waits on an empty replication stream, and how long its
 *     queue waits for a batch: an event waits up to this long. Each interval also costs CPU while
 *     idle: Debezium 3.6's queue spins through the last millisecond of every interval (a relay
 *     doing nothing used 10-14% of a core at 10 ms, 18-22% at 5 ms (the default), 50-58% at 1 ms;
 *     docs/BENCHMARKS.md)
 * @param maxBatchSize most records handed to the producer in one batch
 * @param heartbeatInterval how often the relay writes a WAL message so the slot advances while the
 *     outbox is idle; zero turns heartbeats off
 * @param slotLagAlertBytes slot lag (WAL retained for the slot) above which the alert flag is up
 * @param leaderRetryInterval how often a standby tries to become leader, and the leader checks its
 *     lock
 * @param leaderLease how long a leader that stops answering keeps the lead: PostgreSQL ends the
 *     lock's session after this long without a check ({@code idle_session_timeout}), and the leader
 *     sends nothing more once half of it has passed since its last confirmed check, so a frozen
 *     leader (SIGSTOP, a paused VM, a cut link) hands over within it and publishes nothing when it
 *     wakes
 * @param instanceId this relay's name in logs and metrics
 * @param dropSlotOnStop drop the slot on a clean stop (tests only: the next start misses events)
 * @param debezium pass-through Debezium properties, with their own names, applied last
 * @param kafka Kafka producer properties the caller sets, with their own names, over the producer's
 *     own and the user's ({@link KafkaClients})
 * @param skipEvents outbox row ids the relay passes over without publishing: an operator's way past
 *     a row Kafka refuses for good ({@link PoisonRowException}); the rows stay in the table
 * @param topicPartitions partitions of the topics the relay creates (an existing topic is used as
 *     it is)
 * @param allowUnguardedStandbys publish even while the database has physical standbys logical
 *     decoding does not wait for (without it the relay refuses: a failover could lose commits whose
 *     events it had published; {@code StandbyGuard})
 * @param headerFormat the events' headers: Ordinal's, CloudEvents' or both ({@link HeaderFormat})
 * @param outboxTable the outbox table in {@code outboxSchema}: Ordinal's own unless a team's
 */
public record RelayConfig(
    DatabaseSettings db,
    KafkaClients kafkaClients,
    String outboxSchema,
    String topicPrefix,
    String slotName,
    String publicationName,
    boolean createPublication,
    OffsetStore offsetStore,
    Path offsetFile,
    Duration offsetFlushInterval,
    Duration pollInterval,
    int maxBatchSize,
    Duration heartbeatInterval,
    long slotLagAlertBytes,
    Duration leaderRetryInterval,
    String instanceId,
    boolean dropSlotOnStop,
    Map<String, String> debezium,
    Map<String, Object> kafka,
    Set<UUID> skipEvents,
    Topics.Durability topicDurability,
    Duration leaderLease,
    int topicPartitions,
    boolean allowUnguardedStandbys,
    HeaderFormat headerFormat,
    OutboxTable outboxTable) {

  /** Where the relayed WAL position is kept. */
  public enum OffsetStore {
    /** A table beside the outbox ({@code <slot>_offsets}): a standby on another host finds it. */
    POSTGRES,
    /** A local file: only this host can resume from it. */
    FILE
  }

  /** Slot and publication names are {@code ordinal_<schema>} unless set: one per outbox. */
  public static final String DEFAULT_NAME_PREFIX = "ordinal_";

  public static final Duration DEFAULT_OFFSET_FLUSH_INTERVAL = Duration.ofSeconds(1);

  /**
   * 5 ms: the one of 1, 5 and 10 ms that met both latency goals (commit to consumer p99 <= 15 ms at
   * 200 events/s, <= 30 ms at 1,000/s) in two consecutive full {@code ./ordinal bench} runs
   * (2026-12-02: 14.6 / 14.0 and 13.6 / 11.5 ms; 10 ms gave 26.8 and 22.9 ms at 200/s), for 18-22%
   * of a core while idle against 10-14% at 10 ms.
   */
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(5);

  public static final int DEFAULT_MAX_BATCH_SIZE = 512;
  public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(5);
  public static final long DEFAULT_SLOT_LAG_ALERT_BYTES = 256L * 1024 * 1024;
  public static final Duration DEFAULT_LEADER_RETRY_INTERVAL = Duration.ofSeconds(1);
  public static final Duration DEFAULT_LEADER_LEASE = Duration.ofSeconds(10);

  private static final Check<String> NAME =
      Check.matches("[a-z0-9_]{1,50}", "1 to 50 lower-case letters, digits or '_'");

  /** {@code --topic-prefix}: {@link #topicPrefix()}. */
  public static final Setting<String> TOPIC_PREFIX =
      Setting.string(
          "topic-prefix",
          Topics.DEFAULT_PREFIX,
          "Topics are <prefix>.<aggregate_type>",
          Topics.PREFIX);

  /** {@code --slot}: {@link #slotName()}. */
  public static final Setting<String> SLOT =
      Setting.optionalString(
          "slot",
          DEFAULT_NAME_PREFIX + "<schema>",
          "Replication slot, with one --schema only",
          NAME);

  /** {@code --publication}: {@link #publicationName()}. */
  public static final Setting<String> PUBLICATION =
      Setting.optionalString(
          "publication",
          DEFAULT_NAME_PREFIX + "<schema>",
          "Publication on the outbox, with one --schema only",
          NAME);

  /** {@code --create-publication}: {@link #createPublication()}. */
  public static final Setting<Boolean> CREATE_PUBLICATION =
      Setting.flag(
          "create-publication",
          true,
          "Create the publication if missing (needs table ownership); --no-create-publication"
              + " with a least-privilege role");

  /** {@code --heartbeat}: {@link #heartbeatInterval()}. */
  public static final Setting<Duration> HEARTBEAT =
      Setting.duration(
          "heartbeat",
          DEFAULT_HEARTBEAT_INTERVAL,
          "WAL heartbeat interval; 0s turns it off",
          Check.notNegative());

  /** {@code --offset-flush-interval}: {@link #offsetFlushInterval()}. */
  public static final Setting<Duration> OFFSET_FLUSH_INTERVAL =
      Setting.duration(
          "offset-flush-interval",
          DEFAULT_OFFSET_FLUSH_INTERVAL,
          "How often the relayed position is stored",
          Check.positive());

  /** {@code --leader-lease}: {@link #leaderLease()}. */
  public static final Setting<Duration> LEADER_LEASE =
      Setting.duration(
          "leader-lease",
          DEFAULT_LEADER_LEASE,
          "How long a leader that stops answering (frozen, paused, cut off) keeps the lead:"
              + " PostgreSQL ends its lock's session after this long without a check, a standby"
              + " takes over, and the old leader sends nothing more once half of it has passed"
              + " without a check",
          Check.positive());

  /** {@code --instance-id}: {@link #instanceId()}. */
  public static final Setting<String> INSTANCE_ID =
      Setting.optionalString(
          "instance-id",
          "random",
          "This relay's name in logs and metrics",
          v -> v.isBlank() || v.length() > 64 ? "must have 1 to 64 characters, not " + v : null);

  /** {@code --skip-event}: {@link #skipEvents()}. */
  public static final Setting<List<UUID>> SKIP_EVENTS =
      Setting.list(
          "skip-event",
          UUID.class,
          OutboxTable::rowId,
          List.of(),
          "none",
          "Outbox row id(s) to pass over without publishing, after the relay stopped before a row"
              + " Kafka refuses for good and named it; the row stays in the table. Remove it once"
              + " the relay has passed it",
          Check.any());

  /** {@code --allow-unguarded-standbys}: {@link #allowUnguardedStandbys()}. */
  public static final Setting<Boolean> ALLOW_UNGUARDED_STANDBYS =
      Setting.flag(
          "allow-unguarded-standbys",
          false,
          "Publish even while the database has physical standbys that logical decoding does not"
              + " wait for (not in synchronized_standby_slots, or before PostgreSQL 17): a failover"
              + " may then lose orders whose events were published");

  public RelayConfig {
    Objects.requireNonNull(db, "db");
    // the relay streams, locks and writes its position: with several hosts, only the primary
    db = db.forPrimary();
    Objects.requireNonNull(kafkaClients, "kafkaClients");
    if (outboxSchema == null || outboxSchema.isBlank()) {
      throw new ConfigurationException("The relay needs the schema of the outbox table.");
    }
    ConfigurationException.check(TOPIC_PREFIX, topicPrefix);
    slotName = slotName == null ? defaultName(outboxSchema) : slotName;
    publicationName = publicationName == null ? defaultName(outboxSchema) : publicationName;
    ConfigurationException.check(SLOT, slotName);
    ConfigurationException.check(PUBLICATION, publicationName);
    offsetStore = offsetStore == null ? OffsetStore.POSTGRES : offsetStore;
    if (offsetStore == OffsetStore.FILE && offsetFile == null) {
      throw new ConfigurationException("offsetStore FILE needs offsetFile: where to keep it.");
    }
    offsetFlushInterval =
        ConfigurationException.check(
            OFFSET_FLUSH_INTERVAL,
            offsetFlushInterval == null ? DEFAULT_OFFSET_FLUSH_INTERVAL : offsetFlushInterval);
    pollInterval = ConfigChecks.positive("pollInterval", pollInterval, DEFAULT_POLL_INTERVAL);
    leaderRetryInterval =
        ConfigChecks.positive(
            "leaderRetryInterval", leaderRetryInterval, DEFAULT_LEADER_RETRY_INTERVAL);
    leaderLease =
        ConfigurationException.check(
            LEADER_LEASE, leaderLease == null ? DEFAULT_LEADER_LEASE : leaderLease);
    if (leaderLease.compareTo(leaderRetryInterval.multipliedBy(4)) < 0
        || leaderLease.compareTo(Duration.ofSeconds(2)) < 0) {
      throw new ConfigurationException(
          LEADER_LEASE.option()
              + " must be at least 2 s and 4 times the leader check interval ("
              + leaderRetryInterval
              + "), or a live leader would lose it between two checks, not "
              + leaderLease);
    }
    heartbeatInterval =
        ConfigurationException.check(
            HEARTBEAT, heartbeatInterval == null ? DEFAULT_HEARTBEAT_INTERVAL : heartbeatInterval);
    maxBatchSize = maxBatchSize <= 0 ? DEFAULT_MAX_BATCH_SIZE : maxBatchSize;
    slotLagAlertBytes = slotLagAlertBytes <= 0 ? DEFAULT_SLOT_LAG_ALERT_BYTES : slotLagAlertBytes;
    instanceId =
        instanceId == null ? "relay-" + UUID.randomUUID().toString().substring(0, 8) : instanceId;
    ConfigurationException.check(INSTANCE_ID, instanceId);
    debezium = debezium == null ? Map.of() : Map.copyOf(debezium);
    kafka = kafka == null ? Map.of() : Map.copyOf(kafka);
    skipEvents = skipEvents == null ? Set.of() : Set.copyOf(skipEvents);
    topicDurability = topicDurability == null ? Topics.Durability.DEFAULT : topicDurability;
    topicPartitions =
        ConfigurationException.check(
            Topics.PARTITIONS, topicPartitions <= 0 ? Topics.DEFAULT_PARTITIONS : topicPartitions);
    headerFormat = headerFormat == null ? HeaderFormat.ORDINAL : headerFormat;
    outboxTable = outboxTable == null ? OutboxTable.DEFAULT : outboxTable;
  }

  /**
   * The slot and publication name a relay of {@code schema}'s outbox uses by default: {@code
   * ordinal_<schema>}, so relays of two outboxes never share a slot by accident.
   */
  public static String defaultName(String schema) {
    return DEFAULT_NAME_PREFIX + schema.toLowerCase(java.util.Locale.ROOT);
  }

  /** The outbox table's qualified name, {@code <schema>.<table>}, for messages. */
  public String outbox() {
    return outboxTable.qualified(outboxSchema);
  }

  /** The table the relayed position is kept in, in the outbox schema. */
  public String offsetTable() {
    return slotName + "_offsets";
  }

  /** The Kafka bootstrap servers. */
  public String kafkaBootstrap() {
    return kafkaClients.bootstrapServers();
  }

  /** A builder on {@code kafkaBootstrap} with no client properties of the user's. */
  public static Builder builder(
      DatabaseSettings db, String kafkaBootstrap, String outboxSchema, String topicPrefix) {
    return builder(
        db,
        KafkaClients.of(ConfigChecks.kafkaBootstrap(kafkaBootstrap, "The relay")),
        outboxSchema,
        topicPrefix);
  }

  public static Builder builder(
      DatabaseSettings db, KafkaClients kafkaClients, String outboxSchema, String topicPrefix) {
    return new Builder(db, kafkaClients, outboxSchema, topicPrefix);
  }

  /** Defaults for everything but where things are; the position is kept in PostgreSQL. */
  public static RelayConfig of(
      DatabaseSettings db, String kafkaBootstrap, String outboxSchema, String topicPrefix) {
    return builder(db, kafkaBootstrap, outboxSchema, topicPrefix).build();
  }

  /** Builds a {@link RelayConfig}; unset values take the {@code DEFAULT_} constants. */
  public static final class Builder {
    private final DatabaseSettings db;
    private final KafkaClients kafkaClients;
    private final String outboxSchema;
    private final String topicPrefix;
    private String slotName;
    private String publicationName;
    private boolean createPublication = true;
    private OffsetStore offsetStore = OffsetStore.POSTGRES;
    private Path offsetFile;
    private Duration offsetFlushInterval;
    private Duration pollInterval;
    private int maxBatchSize;
    private Duration heartbeatInterval;
    private Duration leaderRetryInterval;
    private String instanceId;
    private boolean dropSlotOnStop;
    private Map<String, String> debezium;
    private Map<String, Object> kafka;
    private Set<UUID> skipEvents;
    private Topics.Durability topicDurability;
    private Duration leaderLease;
    private boolean allowUnguardedStandbys;
    private int topicPartitions;
    private HeaderFormat headerFormat;
    private OutboxTable outboxTable;

    private Builder(
        DatabaseSettings db, KafkaClients kafkaClients, String outboxSchema, String topicPrefix) {
      this.db = db;
      this.kafkaClients = kafkaClients;
      this.outboxSchema = outboxSchema;
      this.topicPrefix = topicPrefix;
    }

    /**
     * Slot and publication names (null: {@code ordinal_<schema>}); {@code dropOnStop} drops the
     * slot whenever the engine stops, even on an error, so only a throw-away test stack may set it.
     */
    public Builder slot(String slot, String publication, boolean dropOnStop) {
      this.slotName = slot;
      this.publicationName = publication;
      this.dropSlotOnStop = dropOnStop;
      return this;
    }

    public Builder createPublication(boolean create) {
      this.createPublication = create;
      return this;
    }

    public Builder offsetFile(Path file) {
      this.offsetStore = OffsetStore.FILE;
      this.offsetFile = file;
      return this;
    }

    public Builder offsetFlushInterval(Duration d) {
      this.offsetFlushInterval = d;
      return this;
    }

    public Builder pollInterval(Duration d) {
      this.pollInterval = d;
      return this;
    }

    public Builder maxBatchSize(int n) {
      this.maxBatchSize = n;
      return this;
    }

    public Builder heartbeatInterval(Duration d) {
      this.heartbeatInterval = d;
      return this;
    }

    public Builder leaderRetryInterval(Duration d) {
      this.leaderRetryInterval = d;
      return this;
    }

    public Builder instanceId(String id) {
      this.instanceId = id;
      return this;
    }

    public Builder debezium(Map<String, String> props) {
      this.debezium = props;
      return this;
    }

    public Builder kafka(Map<String, Object> props) {
      this.kafka = props;
      return this;
    }

    /** Outbox row ids to pass over without publishing (see {@link RelayConfig#skipEvents()}). */
    public Builder skipEvents(Set<UUID> ids) {
      this.skipEvents = ids;
      return this;
    }

    /** Replication factor and min.insync.replicas of created topics (null: the default). */
    public Builder topicDurability(Topics.Durability d) {
      this.topicDurability = d;
      return this;
    }

    /** How long a leader that stops answering keeps the lead (null: 10 s). */
    public Builder leaderLease(Duration d) {
      this.leaderLease = d;
      return this;
    }

    /** Partitions of the topics the relay creates (0: {@link Topics#DEFAULT_PARTITIONS}). */
    public Builder topicPartitions(int n) {
      this.topicPartitions = n;
      return this;
    }

    /** Publish although a failover could lose what was published (see the record). */
    public Builder allowUnguardedStandbys(boolean allow) {
      this.allowUnguardedStandbys = allow;
      return this;
    }

    /** A team's own outbox table, and the events' headers (nulls: Ordinal's). */
    public Builder outbox(OutboxTable t, HeaderFormat f) {
      this.outboxTable = t;
      this.headerFormat = f;
      return this;
    }

    public RelayConfig build() {
      return new RelayConfig(
          db,
          kafkaClients,
          outboxSchema,
          topicPrefix,
          slotName,
          publicationName,
          createPublication,
          offsetStore,
          offsetFile,
          offsetFlushInterval,
          pollInterval,
          maxBatchSize,
          heartbeatInterval,
          0, // the default slot lag alert
          leaderRetryInterval,
          instanceId,
          dropSlotOnStop,
          debezium,
          kafka,
          skipEvents,
          topicDurability,
          leaderLease,
          topicPartitions,
          allowUnguardedStandbys,
          headerFormat,
          outboxTable);
    }
  }

  @Override
  public String toString() {
    String offsets =
        offsetStore == OffsetStore.POSTGRES ? outboxSchema + "." + offsetTable() : "" + offsetFile;
    return String.format(
        "RelayConfig[instance=%s, db=%s, kafka=%s, outbox=%s, topics=%s.<aggregate>,"
            + " slot=%s, publication=%s, offsets=%s]",
        instanceId,
        db,
        kafkaClients,
        outboxTable.qualified(outboxSchema),
        topicPrefix,
        slotName,
        publicationName,
        offsets);
  }
}
