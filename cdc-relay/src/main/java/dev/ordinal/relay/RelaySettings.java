package dev.ordinal.relay;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.runtime.ManagementSettings;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * Everything a relay process ({@link RelayApp}) is started with, checked once: each problem is one
 * {@link ConfigurationException} sentence naming the option. One process relays the outbox of each
 * schema in {@code schemas}, each with a slot, publication and leader lock of its own ({@code
 * ordinal_<schema>} unless {@code slot}/{@code publication} name them, which only one schema may).
 *
 * @param db the database holding the outboxes; the role needs LOGIN REPLICATION (see {@link
 *     RelaySetup})
 * @param kafkaBootstrap Kafka bootstrap servers
 * @param schemas the schemas whose {@code outbox} table is relayed
 * @param topicPrefix events go to {@code <prefix>.<aggregate_type>}
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
 *     creates (capped by the brokers present); null for {@link Topics.Durability#DEFAULT}
 * @param leaderLease how long a leader that stops answering keeps the lead ({@link
 *     RelayConfig#leaderLease()}); null for 10 s
 */
public record RelaySettings(
    DatabaseSettings db,
    String kafkaBootstrap,
    List<String> schemas,
    String topicPrefix,
    String slot,
    String publication,
    boolean createPublication,
    Duration heartbeat,
    Duration offsetFlush,
    String instanceId,
    ManagementSettings management,
    Set<UUID> skipEvents,
    Topics.Durability topicDurability,
    Duration leaderLease) {

  public static final String DEFAULT_SCHEMA = "orders";
  public static final String DEFAULT_TOPIC_PREFIX = "ordinal";
  public static final int DEFAULT_MANAGEMENT_PORT = 9411;

  public RelaySettings {
    Objects.requireNonNull(db, "db");
    schemas = schemas == null || schemas.isEmpty() ? List.of(DEFAULT_SCHEMA) : List.copyOf(schemas);
    if (schemas.stream().distinct().count() != schemas.size()) {
      throw new ConfigurationException("--schema names a schema twice: " + schemas);
    }
    if (schemas.size() > 1 && (slot != null || publication != null)) {
      throw new ConfigurationException(
          "--slot and --publication name the slot of one outbox; with several --schema each gets"
              + " ordinal_<schema>.");
    }
    heartbeat = heartbeat == null ? RelayConfig.DEFAULT_HEARTBEAT_INTERVAL : heartbeat;
    offsetFlush = offsetFlush == null ? RelayConfig.DEFAULT_OFFSET_FLUSH_INTERVAL : offsetFlush;
    management =
        management == null ? ManagementSettings.local(DEFAULT_MANAGEMENT_PORT) : management;
    skipEvents = skipEvents == null ? Set.of() : Set.copyOf(skipEvents);
    topicDurability = topicDurability == null ? Topics.Durability.DEFAULT : topicDurability;
    leaderLease = leaderLease == null ? RelayConfig.DEFAULT_LEADER_LEASE : leaderLease;
    // every per-schema config is checked now, so a bad value is refused before anything starts
    for (String schema : schemas) {
      configFor(
              db,
              kafkaBootstrap,
              schema,
              topicPrefix,
              slot,
              publication,
              createPublication,
              heartbeat,
              offsetFlush,
              instanceId,
              skipEvents,
              topicDurability,
              leaderLease)
          .build();
    }
  }

  /** As the canonical constructor, skipping no event, with the default topics and lease. */
  public RelaySettings(
      DatabaseSettings db,
      String kafkaBootstrap,
      List<String> schemas,
      String topicPrefix,
      String slot,
      String publication,
      boolean createPublication,
      Duration heartbeat,
      Duration offsetFlush,
      String instanceId,
      ManagementSettings management) {
    this(
        db,
        kafkaBootstrap,
        schemas,
        topicPrefix,
        slot,
        publication,
        createPublication,
        heartbeat,
        offsetFlush,
        instanceId,
        management,
        Set.of(),
        null,
        null);
  }

  /** One schema, the defaults for everything else. */
  public static RelaySettings of(DatabaseSettings db, String kafkaBootstrap, String schema) {
    return new RelaySettings(
        db,
        kafkaBootstrap,
        List.of(schema),
        DEFAULT_TOPIC_PREFIX,
        null,
        null,
        true,
        null,
        null,
        null,
        null);
  }

  /** These settings, passing over the outbox rows {@code ids} without publishing them. */
  public RelaySettings withSkipEvents(Set<UUID> ids) {
    return with(d -> d.skipEvents = ids);
  }

  /** These settings, creating topics with {@code d} (capped by the brokers present). */
  public RelaySettings withTopicDurability(Topics.Durability durability) {
    return with(d -> d.topicDurability = durability);
  }

  /** These settings, with a leader that stops answering keeping the lead for {@code lease}. */
  public RelaySettings withLeaderLease(Duration lease) {
    return with(d -> d.leaderLease = lease);
  }

  public RelaySettings withSchemas(List<String> s) {
    return with(d -> d.schemas = s);
  }

  public RelaySettings withTopicPrefix(String p) {
    return with(d -> d.topicPrefix = p);
  }

  public RelaySettings withSlot(String s, String p) {
    return with(
        d -> {
          d.slot = s;
          d.publication = p;
        });
  }

  public RelaySettings withInstanceId(String id) {
    return with(d -> d.instanceId = id);
  }

  public RelaySettings withManagement(ManagementSettings m) {
    return with(d -> d.management = m);
  }

  private RelaySettings with(java.util.function.Consumer<Draft> change) {
    Draft d = new Draft(this);
    change.accept(d);
    return d.build();
  }

  /** A copy of the settings to change one part of; built (and checked) again as a whole. */
  private static final class Draft {
    DatabaseSettings db;
    String kafkaBootstrap;
    List<String> schemas;
    String topicPrefix;
    String slot;
    String publication;
    boolean createPublication;
    Duration heartbeat;
    Duration offsetFlush;
    String instanceId;
    ManagementSettings management;
    Set<UUID> skipEvents;
    Topics.Durability topicDurability;
    Duration leaderLease;

    Draft(RelaySettings s) {
      db = s.db;
      kafkaBootstrap = s.kafkaBootstrap;
      schemas = s.schemas;
      topicPrefix = s.topicPrefix;
      slot = s.slot;
      publication = s.publication;
      createPublication = s.createPublication;
      heartbeat = s.heartbeat;
      offsetFlush = s.offsetFlush;
      instanceId = s.instanceId;
      management = s.management;
      skipEvents = s.skipEvents;
      topicDurability = s.topicDurability;
      leaderLease = s.leaderLease;
    }

    RelaySettings build() {
      return new RelaySettings(
          db,
          kafkaBootstrap,
          schemas,
          topicPrefix,
          slot,
          publication,
          createPublication,
          heartbeat,
          offsetFlush,
          instanceId,
          management,
          skipEvents,
          topicDurability,
          leaderLease);
    }
  }

  /** The relay configuration of {@code schema}'s outbox. */
  public RelayConfig.Builder config(String schema) {
    return configFor(
        db,
        kafkaBootstrap,
        schema,
        topicPrefix,
        slot,
        publication,
        createPublication,
        heartbeat,
        offsetFlush,
        instanceId,
        skipEvents,
        topicDurability,
        leaderLease);
  }

  private static RelayConfig.Builder configFor(
      DatabaseSettings db,
      String kafkaBootstrap,
      String schema,
      String topicPrefix,
      String slot,
      String publication,
      boolean createPublication,
      Duration heartbeat,
      Duration offsetFlush,
      String instanceId,
      Set<UUID> skipEvents,
      Topics.Durability topicDurability,
      Duration leaderLease) {
    RelayConfig.Builder b =
        RelayConfig.builder(db.withSchema(schema), kafkaBootstrap, schema, topicPrefix)
            .slot(slot, publication, false)
            .createPublication(createPublication)
            .heartbeatInterval(heartbeat)
            .offsetFlushInterval(offsetFlush)
            .skipEvents(skipEvents)
            .topicDurability(topicDurability)
            .leaderLease(leaderLease);
    if (instanceId != null) {
      b.instanceId(instanceId);
    }
    return b;
  }
}
