package dev.ordinal.messaging;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Creates topics that a process reads or writes, when they do not exist yet, and waits until every
 * partition has a leader that serves it. Publishing to a topic the broker auto-creates on first use
 * races its partition set-up: an idempotent producer can then be refused until its delivery timeout
 * (KAFKA-15591, seen with Kafka 4.3.1), so producers here create their topics first.
 */
public final class Topics {
  public static final int DEFAULT_PARTITIONS = 3;
  static final Duration LEADER_WAIT = Duration.ofSeconds(30);

  private Topics() {}

  /**
   * Creates {@code topic} with {@code partitions} partitions unless it exists (any size), then
   * waits until each partition has a leader.
   */
  public static void ensure(String bootstrapServers, String topic, int partitions) {
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
      try {
        admin.createTopics(List.of(new NewTopic(topic, partitions, (short) -1))).all().get();
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw new MessagingException("Cannot create topic " + topic + ": " + e.getCause(), e);
        }
      }
      awaitServing(admin, awaitLeaders(admin, topic));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MessagingException("Interrupted while creating topic " + topic, e);
    }
  }

  private static TopicDescription awaitLeaders(Admin admin, String topic)
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
    private final String bootstrapServers;
    private final int partitions;
    private final Set<String> ready = ConcurrentHashMap.newKeySet();

    public Known(String bootstrapServers, int partitions) {
      this.bootstrapServers = bootstrapServers;
      this.partitions = partitions;
    }

    /** Creates {@code topic} (and waits for its leaders) the first time it is asked for. */
    public void ensure(String topic) {
      if (!ready.contains(topic)) {
        synchronized (this) {
          if (!ready.contains(topic)) {
            Topics.ensure(bootstrapServers, topic, partitions);
            ready.add(topic);
          }
        }
      }
    }
  }
}
