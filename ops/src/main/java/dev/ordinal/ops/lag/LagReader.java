package dev.ordinal.ops.lag;

import dev.ordinal.messaging.ConfigurationException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsResult;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads consumer lag from Kafka: per group, its state and members ({@code describeConsumerGroups}),
 * its committed offsets ({@code listConsumerGroupOffsets}) and the log-end offsets ({@code
 * listOffsets} with {@link OffsetSpec#latest()}) of every partition it has committed on or is
 * assigned: the rows and figures of {@code kafka-consumer-groups --describe}.
 *
 * <p>The lag in time comes from the record itself: for each lagging partition a consumer without a
 * group ({@code assign} + {@code seek} to the committed offset) polls the next record the group
 * will read, and the time lag is {@code now(clock) - record.timestamp()}. Nothing is interpolated.
 * It never joins a group and never commits, so reading lag changes nothing for the groups read.
 *
 * <p>One instance reads from one thread at a time ({@link #read} is synchronized); it holds one
 * admin client and one consumer until {@link #close}.
 */
public final class LagReader implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(LagReader.class);
  private static final Duration POLL = Duration.ofMillis(100);
  private static final Comparator<TopicPartition> BY_TOPIC_PARTITION =
      Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

  private final LagReaderConfig config;
  private final Admin admin;
  private final Consumer<byte[], byte[]> consumer;
  private final Clock clock;

  /** Creates its admin client and consumer from {@code config}. */
  public LagReader(LagReaderConfig config, Clock clock) {
    this(config, newAdmin(config), newConsumer(config), clock);
  }

  // visible for testing
  LagReader(LagReaderConfig config, Admin admin, Consumer<byte[], byte[]> consumer, Clock clock) {
    this.config = config;
    this.admin = admin;
    this.consumer = consumer;
    this.clock = clock;
  }

  private static Admin newAdmin(LagReaderConfig config) {
    int ms = (int) config.requestTimeout().toMillis();
    return config
        .clients()
        .admin(
            "lag",
            Map.of(
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, ms,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, ms));
  }

  private static Consumer<byte[], byte[]> newConsumer(LagReaderConfig config) {
    Map<String, Object> p = new HashMap<>();
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    // a committed offset older than the log start: the group will read the first record left
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    // one record per partition is all it needs; keep each fetch small
    p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 64 * 1024);
    p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) config.requestTimeout().toMillis());
    return config
        .clients()
        .consumer("lag-records", p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  /**
   * The consumer groups of the cluster (classic and consumer protocol), sorted.
   *
   * @throws LagReadException when Kafka does not answer in time
   */
  public List<String> groups() {
    return await(
            admin.listGroups(ListGroupsOptions.forConsumerGroups()).all(),
            "list the consumer groups")
        .stream()
        .map(GroupListing::groupId)
        .sorted()
        .toList();
  }

  /**
   * Reads the groups and partitions {@code query} selects. A group the query does not name and that
   * has nothing on the selected topic is left out.
   *
   * @throws ConfigurationException when the query names a group or a topic that does not exist (one
   *     sentence naming it); fix the query rather than retry
   * @throws LagReadException when Kafka does not answer in time; read again later
   */
  public synchronized LagSnapshot read(LagQuery query) {
    if (query.topic() != null) {
      checkTopicExists(query.topic());
    }
    List<String> ids = query.group() != null ? List.of(query.group()) : groups();
    Map<String, ConsumerGroupDescription> descriptions = describe(ids, query.group() != null);
    Map<String, Map<TopicPartition, Long>> committed = committed(descriptions.keySet());
    if (query.group() != null) {
      checkGroupExists(query.group(), descriptions.get(query.group()), committed);
    }

    Map<String, Map<TopicPartition, MemberDescription>> assigned = new TreeMap<>();
    Set<TopicPartition> all = new TreeSet<>(BY_TOPIC_PARTITION);
    for (ConsumerGroupDescription d : descriptions.values()) {
      Map<TopicPartition, MemberDescription> owners = new HashMap<>();
      for (MemberDescription m : d.members()) {
        for (TopicPartition tp : m.assignment().topicPartitions()) {
          if (query.includes(tp.topic())) {
            owners.put(tp, m);
          }
        }
      }
      assigned.put(d.groupId(), owners);
      all.addAll(owners.keySet());
      committed.get(d.groupId()).keySet().removeIf(tp -> !query.includes(tp.topic()));
      all.addAll(committed.get(d.groupId()).keySet());
    }
    Map<TopicPartition, Long> logEnd = logEndOffsets(all);
    Instant now = clock.instant();

    Map<String, List<PartitionLag>> rows = new TreeMap<>();
    Map<TopicPartition, Set<Long>> toRead = new HashMap<>();
    for (ConsumerGroupDescription d : descriptions.values()) {
      String group = d.groupId();
      Set<TopicPartition> partitions = new TreeSet<>(BY_TOPIC_PARTITION);
      partitions.addAll(assigned.get(group).keySet());
      partitions.addAll(committed.get(group).keySet());
      if (partitions.isEmpty() && query.group() == null) {
        continue;
      }
      List<PartitionLag> list = new ArrayList<>();
      for (TopicPartition tp : partitions) {
        PartitionLag p =
            PartitionLag.of(
                tp.topic(), tp.partition(), committed.get(group).get(tp), logEnd.get(tp));
        MemberDescription m = assigned.get(group).get(tp);
        if (m != null) {
          p = p.withMember(m.consumerId(), m.clientId(), m.host());
        }
        if (p.lagging()) {
          toRead.computeIfAbsent(tp, k -> new TreeSet<>()).add(p.committedOffset());
        }
        list.add(p);
      }
      rows.put(group, list);
    }

    Map<TopicPartition, Map<Long, Instant>> timestamps = nextRecordTimestamps(toRead);
    List<GroupLag> groups = new ArrayList<>();
    for (Map.Entry<String, List<PartitionLag>> e : rows.entrySet()) {
      ConsumerGroupDescription d = descriptions.get(e.getKey());
      List<PartitionLag> list = new ArrayList<>();
      for (PartitionLag p : e.getValue()) {
        Instant ts =
            p.lagging()
                ? timestamps
                    .getOrDefault(new TopicPartition(p.topic(), p.partition()), Map.of())
                    .get(p.committedOffset())
                : null;
        list.add(ts == null ? p : p.withNextRecord(ts, now));
      }
      groups.add(new GroupLag(d.groupId(), state(d), members(d), list));
    }
    return new LagSnapshot(now, groups);
  }

  private void checkTopicExists(String topic) {
    try {
      admin
          .describeTopics(List.of(topic))
          .allTopicNames()
          .get(config.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        throw new ConfigurationException(
            "Topic " + topic + " does not exist on the Kafka cluster at " + where() + ".");
      }
      throw failed("describe topic " + topic, e.getCause());
    } catch (TimeoutException e) {
      throw failed("describe topic " + topic, e);
    } catch (InterruptedException e) {
      throw interrupted(e);
    }
  }

  private Map<String, ConsumerGroupDescription> describe(List<String> ids, boolean named) {
    Map<String, ConsumerGroupDescription> out = new TreeMap<>();
    if (ids.isEmpty()) {
      return out;
    }
    Map<String, KafkaFuture<ConsumerGroupDescription>> futures =
        admin.describeConsumerGroups(ids).describedGroups();
    for (Map.Entry<String, KafkaFuture<ConsumerGroupDescription>> e : futures.entrySet()) {
      try {
        out.put(
            e.getKey(),
            e.getValue().get(config.requestTimeout().toMillis(), TimeUnit.MILLISECONDS));
      } catch (ExecutionException ex) {
        if (ex.getCause() instanceof GroupIdNotFoundException) {
          if (named) {
            throw unknownGroup(e.getKey());
          }
          continue; // gone between listing and describing
        }
        throw failed("describe consumer group " + e.getKey(), ex.getCause());
      } catch (TimeoutException ex) {
        throw failed("describe consumer group " + e.getKey(), ex);
      } catch (InterruptedException ex) {
        throw interrupted(ex);
      }
    }
    return out;
  }

  private Map<String, Map<TopicPartition, Long>> committed(Set<String> groups) {
    Map<String, Map<TopicPartition, Long>> out = new TreeMap<>();
    if (groups.isEmpty()) {
      return out;
    }
    Map<String, ListConsumerGroupOffsetsSpec> specs = new LinkedHashMap<>();
    groups.forEach(g -> specs.put(g, new ListConsumerGroupOffsetsSpec()));
    ListConsumerGroupOffsetsResult result = admin.listConsumerGroupOffsets(specs);
    for (String g : groups) {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          await(result.partitionsToOffsetAndMetadata(g), "read the offsets of group " + g);
      Map<TopicPartition, Long> byPartition = new HashMap<>();
      // the admin client gives null for a partition without a committed offset
      offsets.forEach(
          (tp, om) -> {
            if (om != null) {
              byPartition.put(tp, om.offset());
            }
          });
      out.put(g, byPartition);
    }
    return out;
  }

  private void checkGroupExists(
      String group, ConsumerGroupDescription d, Map<String, Map<TopicPartition, Long>> committed) {
    boolean dead = d == null || d.groupState() == GroupState.DEAD;
    if (dead && committed.getOrDefault(group, Map.of()).isEmpty()) {
      throw unknownGroup(group);
    }
  }

  private ConfigurationException unknownGroup(String group) {
    return new ConfigurationException(
        "Consumer group "
            + group
            + " does not exist on the Kafka cluster at "
            + where()
            + "; run without --group to list the groups there.");
  }

  private Map<TopicPartition, Long> logEndOffsets(Set<TopicPartition> partitions) {
    Map<TopicPartition, Long> out = new HashMap<>();
    if (partitions.isEmpty()) {
      return out;
    }
    Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
    partitions.forEach(tp -> specs.put(tp, OffsetSpec.latest()));
    ListOffsetsResult result = admin.listOffsets(specs);
    for (TopicPartition tp : partitions) {
      try {
        out.put(
            tp,
            result
                .partitionResult(tp)
                .get(config.requestTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .offset());
      } catch (ExecutionException | TimeoutException e) {
        // no leader, or the topic is gone: the log end (and so the lag) is unknown, as Kafka's
        // own tool shows it
        log.debug("No log-end offset for {}: {}", tp, e.toString());
      } catch (InterruptedException e) {
        throw interrupted(e);
      }
    }
    return out;
  }

  /**
   * The timestamp of the first record at or after each wanted offset. A partition wanted at several
   * offsets (several groups) is read once per offset, in rounds, since a consumer has one position
   * per partition.
   */
  private Map<TopicPartition, Map<Long, Instant>> nextRecordTimestamps(
      Map<TopicPartition, Set<Long>> wanted) {
    Map<TopicPartition, Map<Long, Instant>> out = new HashMap<>();
    Map<TopicPartition, List<Long>> queue = new HashMap<>();
    wanted.forEach((tp, offsets) -> queue.put(tp, new ArrayList<>(offsets)));
    while (!queue.isEmpty()) {
      Map<TopicPartition, Long> round = new HashMap<>();
      queue.forEach((tp, offsets) -> round.put(tp, offsets.remove(0)));
      queue.values().removeIf(List::isEmpty);
      readRound(round)
          .forEach(
              (tp, ts) -> out.computeIfAbsent(tp, k -> new HashMap<>()).put(round.get(tp), ts));
    }
    return out;
  }

  private Map<TopicPartition, Instant> readRound(Map<TopicPartition, Long> seekTo) {
    Map<TopicPartition, Instant> found = new HashMap<>();
    // unassigned after each round: assigning the same partitions again would keep them paused
    try {
      consumer.assign(seekTo.keySet());
      seekTo.forEach(consumer::seek);
      poll(seekTo, found);
    } finally {
      consumer.assign(List.of());
    }
    if (found.size() < seekTo.size()) {
      log.debug(
          "No record within {} for {} partitions; their time lag is unknown",
          config.recordTimeout(),
          seekTo.size() - found.size());
    }
    return found;
  }

  private void poll(Map<TopicPartition, Long> seekTo, Map<TopicPartition, Instant> found) {
    long deadline = System.nanoTime() + config.recordTimeout().toNanos();
    while (found.size() < seekTo.size() && System.nanoTime() < deadline) {
      ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL);
      for (TopicPartition tp : records.partitions()) {
        if (found.containsKey(tp)) {
          continue;
        }
        for (ConsumerRecord<byte[], byte[]> r : records.records(tp)) {
          if (r.offset() >= seekTo.get(tp)) {
            found.put(tp, Instant.ofEpochMilli(r.timestamp()));
            consumer.pause(List.of(tp));
            break;
          }
        }
      }
    }
  }

  private static String state(ConsumerGroupDescription d) {
    GroupState s = d.groupState();
    return s == null ? GroupState.UNKNOWN.toString() : s.toString();
  }

  private static List<GroupMember> members(ConsumerGroupDescription d) {
    return d.members().stream()
        .map(
            m ->
                new GroupMember(
                    m.consumerId(),
                    m.clientId(),
                    m.host(),
                    m.assignment().topicPartitions().stream().sorted(BY_TOPIC_PARTITION).toList()))
        .sorted(Comparator.comparing(GroupMember::memberId))
        .toList();
  }

  private <T> T await(KafkaFuture<T> future, String what) {
    try {
      return future.get(config.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw failed(what, e.getCause());
    } catch (TimeoutException e) {
      throw failed(what, e);
    } catch (InterruptedException e) {
      throw interrupted(e);
    }
  }

  private LagReadException failed(String what, Throwable cause) {
    String why =
        cause instanceof TimeoutException
                || cause instanceof org.apache.kafka.common.errors.TimeoutException
            ? "no answer within " + config.requestTimeout().toSeconds() + " s"
            : String.valueOf(cause.getMessage());
    return new LagReadException(
        "Could not " + what + " on the Kafka cluster at " + where() + " (" + why + ").", cause);
  }

  private LagReadException interrupted(InterruptedException e) {
    Thread.currentThread().interrupt();
    return new LagReadException("Interrupted while reading consumer lag.", e);
  }

  private String where() {
    return config.bootstrapServers();
  }

  /** Closes the admin client and the consumer. */
  @Override
  public void close() {
    Duration grace = Duration.ofSeconds(5);
    consumer.close(CloseOptions.timeout(grace));
    admin.close(grace);
  }
}
