package dev.ordinal.messaging.kafka;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.MessagingException;
import dev.ordinal.runtime.settings.Check;
import dev.ordinal.runtime.settings.Setting;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates topics that a process reads or writes, when they do not exist yet, and waits until every
 * partition has a leader that serves it. Publishing to a topic the broker auto-creates on first use
 * races its partition set-up: an idempotent producer can then be refused until its delivery timeout
 * (KAFKA-15591, seen with Kafka 4.3.1), so producers here create their topics first.
 *
 * <p>Topics are created durable: replication factor and {@code min.insync.replicas} of a {@link
 * Durability} (3 and 2 unless told otherwise, so {@code acks=all} means two copies at least),
 * capped by the brokers present; a topic that exists below them gets a warning.
 *
 * <p>A client whose user may not create a topic (no CREATE ACL) uses it when it exists, and is
 * refused in one sentence naming the topic and CREATE when it does not ({@link KafkaRefusals}); one
 * that may not describe a topic's configuration is refused naming DESCRIBE_CONFIGS, one that may
 * not describe the topic itself naming DESCRIBE (which its READ or WRITE would give).
 */
public final class Topics {
  private static final Logger log = LoggerFactory.getLogger(Topics.class);

  public static final int DEFAULT_PARTITIONS = 3;
  static final Duration LEADER_WAIT = Duration.ofSeconds(30);

  /** The prefix of every topic name ({@code <prefix>.order}, ...) unless a service is told. */
  public static final String DEFAULT_PREFIX = "ordinal";

  /** What a topic prefix may be: the characters of a Kafka topic name. */
  public static final Check<String> PREFIX =
      Check.matches("[a-zA-Z0-9._-]{1,200}", "letters, digits, '.', '_' or '-'");

  /** {@code --replication-factor} of the topics a service creates. */
  public static final Setting<Integer> REPLICATION_FACTOR =
      Setting.integer(
          "replication-factor",
          3,
          "Replication factor of the topics the service creates, capped by the brokers present",
          Check.range(1, Short.MAX_VALUE));

  /** {@code --partitions} of the topics a service creates. */
  public static final Setting<Integer> PARTITIONS =
      Setting.integer(
          "partitions",
          DEFAULT_PARTITIONS,
          "Partitions of the topics the service creates (as many consumers of a group as this can"
              + " work at once); a topic that exists is used as it is",
          Check.range(1, 10_000));

  /** {@code --min-insync-replicas} of the topics a service creates. */
  public static final Setting<Integer> MIN_INSYNC_REPLICAS =
      Setting.integer(
          "min-insync-replicas",
          2,
          "min.insync.replicas of the topics the service creates, capped by their replication"
              + " factor; existing topics below these get a warning at start",
          Check.range(1, Short.MAX_VALUE));

  private Topics() {}

  /**
   * How many copies of each partition a topic keeps, and how many must have a write before {@code
   * acks=all} acknowledges it.
   */
  public record Durability(int replicationFactor, int minInsyncReplicas) {
    /** For a cluster of three brokers or more: one broker may be away without losing writes. */
    public static final Durability DEFAULT =
        new Durability(REPLICATION_FACTOR.defaultValue(), MIN_INSYNC_REPLICAS.defaultValue());

    public Durability {
      ConfigurationException.check(REPLICATION_FACTOR, replicationFactor);
      ConfigurationException.check(MIN_INSYNC_REPLICAS, minInsyncReplicas);
      if (minInsyncReplicas > replicationFactor) {
        throw new ConfigurationException(
            MIN_INSYNC_REPLICAS.option()
                + " must be 1 to the replication factor ("
                + replicationFactor
                + "), not "
                + minInsyncReplicas);
      }
    }

    /**
     * What a cluster of {@code brokers} can give: the replication factor at most the brokers,
     * {@code min.insync.replicas} at most that.
     */
    public Durability cappedTo(int brokers) {
      int rf = Math.max(1, Math.min(replicationFactor, brokers));
      return new Durability(rf, Math.min(minInsyncReplicas, rf));
    }
  }

  /**
   * A topic as {@link #ensure} left it.
   *
   * @param created true when this call created it
   * @param durability what it has: the smallest replica count of its partitions, its {@code
   *     min.insync.replicas}
   * @param wanted what was asked for, capped by the brokers present
   * @param warning why it is below {@code wanted}, when it is (an existing topic)
   */
  public record State(
      String topic,
      boolean created,
      Durability durability,
      Durability wanted,
      Optional<String> warning) {}

  /**
   * Creates {@code topic} with {@code partitions} partitions and {@link Durability#DEFAULT} (capped
   * by the brokers present) unless it exists (any size), then waits until each partition has a
   * leader.
   */
  public static State ensure(String bootstrapServers, String topic, int partitions) {
    return ensure(bootstrapServers, topic, partitions, Durability.DEFAULT);
  }

  /**
   * Creates {@code topic} with {@code partitions} partitions, {@code durability}'s replication
   * factor and {@code min.insync.replicas}, each capped by the brokers present, unless it exists
   * (any size; a warning is logged when it is below them), then waits until each partition has a
   * leader.
   */
  public static State ensure(
      String bootstrapServers, String topic, int partitions, Durability durability) {
    return ensure(KafkaClients.of(bootstrapServers), topic, partitions, durability);
  }

  /**
   * As {@link #ensure(String, String, int)}, through an admin client made by {@code clients}, with
   * {@link Durability#DEFAULT}.
   */
  public static State ensure(KafkaClients clients, String topic, int partitions) {
    return ensure(clients, topic, partitions, Durability.DEFAULT);
  }

  /**
   * As {@link #ensure(String, String, int, Durability)}, through an admin client made by {@code
   * clients}.
   */
  public static State ensure(
      KafkaClients clients, String topic, int partitions, Durability durability) {
    try (Admin admin = clients.admin("topics", Map.of())) {
      Durability wanted = durability.cappedTo(brokers(admin));
      if (wanted.replicationFactor() < durability.replicationFactor()) {
        log.info(
            "Topic {}: replication factor {} and min.insync.replicas {} asked for, {} and {} used:"
                + " the cluster has {} broker(s)",
            topic,
            durability.replicationFactor(),
            durability.minInsyncReplicas(),
            wanted.replicationFactor(),
            wanted.minInsyncReplicas(),
            wanted.replicationFactor());
      }
      boolean created = true;
      try {
        admin
            .createTopics(
                List.of(
                    new NewTopic(topic, partitions, (short) wanted.replicationFactor())
                        .configs(
                            Map.of(
                                TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG,
                                String.valueOf(wanted.minInsyncReplicas())))))
            .all()
            .get();
      } catch (ExecutionException e) {
        if (e.getCause() instanceof TopicAuthorizationException denied) {
          // no CREATE on it: a topic made beforehand is used as it is
          if (!exists(admin, topic)) {
            throw KafkaRefusals.notAuthorized(clients, "CREATE", "topic " + topic, denied);
          }
        } else if (e.getCause() instanceof InvalidReplicationFactorException few) {
          throw new MessagingException(
              "Cannot create topic "
                  + topic
                  + " with replication factor "
                  + wanted.replicationFactor()
                  + ": "
                  + few.getMessage()
                  + " (set --replication-factor to what the cluster can hold).",
              e);
        } else if (!(e.getCause() instanceof TopicExistsException)) {
          throw new MessagingException("Cannot create topic " + topic + ": " + e.getCause(), e);
        }
        created = false;
      }
      TopicDescription d = awaitLeaders(clients, admin, topic);
      awaitServing(admin, d);
      Durability has = durabilityOf(clients, admin, d);
      Optional<String> warning = created ? Optional.empty() : shortfall(topic, has, wanted);
      warning.ifPresent(log::warn);
      return new State(topic, created, has, wanted, warning);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MessagingException("Interrupted while creating topic " + topic, e);
    }
  }

  /**
   * Checks the existing topics whose names start with {@code prefix} against {@code durability}
   * (capped by the brokers present), logging a warning for each below it: for a process that
   * creates its topics as data arrives, at its start.
   *
   * @return the warnings, one sentence each
   */
  public static List<String> checkExisting(
      String bootstrapServers, String prefix, Durability durability) {
    return checkExisting(KafkaClients.of(bootstrapServers), prefix, durability);
  }

  /** As {@link #checkExisting(String, String, Durability)}, through {@code clients}. */
  public static List<String> checkExisting(
      KafkaClients clients, String prefix, Durability durability) {
    try (Admin admin = clients.admin("topics", Map.of())) {
      Durability wanted = durability.cappedTo(brokers(admin));
      List<String> names =
          admin.listTopics().names().get().stream().filter(n -> n.startsWith(prefix)).toList();
      List<String> warnings = new ArrayList<>();
      if (names.isEmpty()) {
        return warnings;
      }
      Collection<TopicDescription> ds = admin.describeTopics(names).allTopicNames().get().values();
      for (TopicDescription d : ds) {
        shortfall(d.name(), durabilityOf(clients, admin, d), wanted).ifPresent(warnings::add);
      }
      warnings.forEach(log::warn);
      return warnings;
    } catch (ExecutionException e) {
      throw new MessagingException(
          "Cannot check the topics " + prefix + "*: " + e.getCause(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MessagingException("Interrupted while checking the topics " + prefix + "*", e);
    }
  }

  /** The warning for a topic that has less than {@code wanted}; empty when it has enough. */
  static Optional<String> shortfall(String topic, Durability has, Durability wanted) {
    if (has.replicationFactor() >= wanted.replicationFactor()
        && has.minInsyncReplicas() >= wanted.minInsyncReplicas()) {
      return Optional.empty();
    }
    return Optional.of(
        "Topic "
            + topic
            + " has replication factor "
            + has.replicationFactor()
            + " and min.insync.replicas "
            + has.minInsyncReplicas()
            + ", below the "
            + wanted.replicationFactor()
            + " and "
            + wanted.minInsyncReplicas()
            + " asked for, so an acknowledged write may exist in fewer copies: raise them"
            + " (kafka-reassign-partitions, kafka-configs --alter --add-config"
            + " min.insync.replicas=...).");
  }

  /**
   * The brokers the cluster has, fenced ones (away: stopped, crashed, cut off) included: a topic
   * first made while one is away gets the replication factor of the whole cluster (KRaft places a
   * replica on the away broker, in sync once it is back), never fewer copies for good.
   */
  private static int brokers(Admin admin) throws InterruptedException {
    try {
      return admin
          .describeCluster(new DescribeClusterOptions().includeFencedBrokers(true))
          .nodes()
          .get()
          .size();
    } catch (ExecutionException e) {
      throw new MessagingException("Cannot describe the Kafka cluster: " + e.getCause(), e);
    }
  }

  /** Whether {@code topic} exists (and this client may describe it). */
  private static boolean exists(Admin admin, String topic) throws InterruptedException {
    try {
      admin.describeTopics(List.of(topic)).allTopicNames().get();
      return true;
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException
          || e.getCause() instanceof TopicAuthorizationException) {
        return false;
      }
      throw new MessagingException("Cannot describe topic " + topic + ": " + e.getCause(), e);
    }
  }

  private static Durability durabilityOf(KafkaClients clients, Admin admin, TopicDescription d)
      throws InterruptedException {
    int rf = d.partitions().stream().mapToInt(p -> p.replicas().size()).min().orElse(0);
    ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, d.name());
    try {
      Config c = admin.describeConfigs(List.of(r)).all().get().get(r);
      var entry = c == null ? null : c.get(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG);
      int minIsr = entry == null || entry.value() == null ? 1 : Integer.parseInt(entry.value());
      // a topic can have min.insync.replicas above its replication factor: report what it has
      return new Durability(Math.max(rf, 1), Math.max(1, Math.min(minIsr, Math.max(rf, 1))));
    } catch (ExecutionException e) {
      if (e.getCause() instanceof TopicAuthorizationException denied) {
        throw KafkaRefusals.notAuthorized(clients, "DESCRIBE_CONFIGS", "topic " + d.name(), denied);
      }
      throw new MessagingException(
          "Cannot describe the configuration of topic " + d.name() + ": " + e.getCause(), e);
    }
  }

  private static TopicDescription awaitLeaders(KafkaClients clients, Admin admin, String topic)
      throws InterruptedException {
    long deadline = System.nanoTime() + LEADER_WAIT.toNanos();
    while (true) {
      try {
        TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
        if (d != null
            && d.partitions().stream().allMatch(p -> p.leader() != null && p.leader().id() >= 0)) {
          return d;
        }
      } catch (ExecutionException e) {
        if (e.getCause() instanceof TopicAuthorizationException denied) {
          throw KafkaRefusals.notAuthorized(
              clients, "DESCRIBE (which READ and WRITE imply)", "topic " + topic, denied);
        }
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
          throw new MessagingException("Cannot describe topic " + topic + ": " + e.getCause(), e);
        }
      }
      if (System.nanoTime() > deadline) {
        throw new MessagingException(
            "Topic " + topic + " has partitions without a leader after " + LEADER_WAIT);
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
  }

  /**
   * Waits until each partition's leader answers for it (a list-offsets request, which the admin
   * client retries while the leader says NOT_LEADER_OR_FOLLOWER). The metadata names a leader a
   * moment before that broker serves the partition; an idempotent producer whose first batch is
   * refused in that moment while a later one is accepted then fails every retry of the first with
   * OUT_OF_ORDER_SEQUENCE_NUMBER until its delivery timeout (seen with Kafka 4.3.1).
   */
  private static void awaitServing(Admin admin, TopicDescription d) throws InterruptedException {
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    d.partitions()
        .forEach(p -> latest.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest()));
    try {
      admin
          .listOffsets(latest, new ListOffsetsOptions().timeoutMs((int) LEADER_WAIT.toMillis()))
          .all()
          .get();
    } catch (ExecutionException e) {
      throw new MessagingException(
          "Topic "
              + d.name()
              + " is not served by its leaders after "
              + LEADER_WAIT
              + ": "
              + e.getCause(),
          e);
    }
  }

  /** Ensures each topic once per process: for producers whose topics appear as data arrives. */
  public static final class Known {
    private final KafkaClients clients;
    private final int partitions;
    private final Durability durability;
    private final Set<String> ready = ConcurrentHashMap.newKeySet();

    public Known(KafkaClients clients, int partitions) {
      this(clients, partitions, Durability.DEFAULT);
    }

    public Known(KafkaClients clients, int partitions, Durability durability) {
      this.clients = clients;
      this.partitions = partitions;
      this.durability = durability;
    }

    /** Creates {@code topic} (and waits for its leaders) the first time it is asked for. */
    public void ensure(String topic) {
      if (!ready.contains(topic)) {
        synchronized (this) {
          if (!ready.contains(topic)) {
            Topics.ensure(clients, topic, partitions, durability);
            ready.add(topic);
          }
        }
      }
    }
  }
}
