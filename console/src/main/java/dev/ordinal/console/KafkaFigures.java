package dev.ordinal.console;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ordinal.messaging.kafka.KafkaClients;
import dev.ordinal.ops.dlq.DeadLetterFilter;
import dev.ordinal.ops.dlq.DeadLetterList;
import dev.ordinal.ops.dlq.DeadLetters;
import dev.ordinal.ops.lag.GroupLag;
import dev.ordinal.ops.lag.LagQuery;
import dev.ordinal.ops.lag.LagReader;
import dev.ordinal.ops.lag.LagReaderConfig;
import dev.ordinal.ops.lag.LagReport;
import dev.ordinal.ops.lag.LagStatusConfig;
import dev.ordinal.ops.lag.LagStatusTracker;
import dev.ordinal.ops.lag.PartitionLag;
import dev.ordinal.ops.replay.ReplayPlanner;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.jooq.DSLContext;

/**
 * What Kafka holds of the pipe: each consumer group's lag (read by ops' {@link LagReader}, as
 * {@code ./ordinal lag} reads it, its status judged over the console's successive reads) and each
 * dead-letter topic ({@code <topic>.dlq}) with the records it holds and its letters that are not
 * discarded, counted by error (read by ops' {@link DeadLetters} as {@code ./ordinal dlq list
 * --group-by error} reads them, again only when the topic's end moved or an action was taken).
 */
final class KafkaFigures implements AutoCloseable {
  static final String DLQ_SUFFIX = ".dlq";
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final LagReader lag;
  private final LagStatusTracker tracker = new LagStatusTracker(LagStatusConfig.defaults());
  private final Admin admin;
  private final DeadLetters deadLetters;
  private final ReplayPlanner planner;

  /** Each dead-letter topic's letters by error, and the end offsets they were read to. */
  private final Map<String, ByError> byError = new ConcurrentHashMap<>();

  private record ByError(Map<TopicPartition, Long> ends, DeadLetterList list) {}

  /**
   * @param log a context on the schema of {@code dlq_redrive_log} (the discarded letters)
   */
  KafkaFigures(KafkaClients clients, DSLContext log, Clock clock) {
    this.lag = new LagReader(LagReaderConfig.of(clients), clock);
    this.admin = clients.admin("console", Map.of());
    this.deadLetters = new DeadLetters(clients, log, clock, TIMEOUT);
    this.planner = new ReplayPlanner(admin, clock, TIMEOUT);
  }

  /** The committed offsets of {@code group} on {@code topic}, by partition; none: empty. */
  Map<Integer, Long> committed(String group, String topic) {
    try {
      return planner.committedOffsets(group, topic);
    } catch (GroupIdNotFoundException e) {
      return Map.of();
    }
  }

  /** Reads the letters of {@code dlqTopic} anew at the next snapshot (after an action). */
  void forget(String dlqTopic) {
    byError.remove(dlqTopic);
  }

  /** Every consumer group: state, members, lag in records and time, status, lag per topic. */
  void groups(ArrayNode into) {
    LagReport report = tracker.update(lag.read(LagQuery.all()));
    for (GroupLag g : report.snapshot().groups()) {
      ObjectNode o = into.addObject();
      o.put("group", g.group());
      o.put("state", g.state());
      o.put("members", g.members().size());
      o.put("lag", g.totalLag());
      o.put("timeLagMs", g.maxTimeLag().map(Duration::toMillis).orElse(null));
      o.put("status", report.status(g.group()).name());
      Map<String, Long> byTopic = new TreeMap<>();
      for (PartitionLag p : g.partitions()) {
        byTopic.merge(p.topic(), Math.max(0, Objects.requireNonNullElse(p.lag(), 0L)), Long::sum);
      }
      ObjectNode topics = o.putObject("topics");
      byTopic.forEach(topics::put);
    }
  }

  /**
   * Every dead-letter topic: the records it holds now (log end minus log start), its letters not
   * discarded, and those by error, most first.
   */
  void deadLetters(ArrayNode into)
      throws InterruptedException, ExecutionException, TimeoutException {
    List<String> topics =
        admin.listTopics().names().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).stream()
            .filter(t -> t.endsWith(DLQ_SUFFIX))
            .sorted()
            .toList();
    if (topics.isEmpty()) {
      return;
    }
    Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
    Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
    admin
        .describeTopics(topics)
        .allTopicNames()
        .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
        .forEach(
            (name, d) ->
                d.partitions()
                    .forEach(
                        p -> {
                          TopicPartition tp = new TopicPartition(name, p.partition());
                          earliest.put(tp, OffsetSpec.earliest());
                          latest.put(tp, OffsetSpec.latest());
                        }));
    var starts = admin.listOffsets(earliest).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    var ends = admin.listOffsets(latest).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    Map<String, Long> records = new TreeMap<>();
    topics.forEach(t -> records.put(t, 0L));
    ends.forEach(
        (tp, end) -> records.merge(tp.topic(), end.offset() - starts.get(tp).offset(), Long::sum));
    for (Map.Entry<String, Long> t : records.entrySet()) {
      ObjectNode o = into.addObject();
      o.put("topic", t.getKey());
      o.put("records", t.getValue());
      Map<TopicPartition, Long> topicEnds = new HashMap<>();
      ends.forEach(
          (tp, end) -> {
            if (tp.topic().equals(t.getKey())) {
              topicEnds.put(tp, end.offset());
            }
          });
      ByError known = byError.get(t.getKey());
      if (known == null || !known.ends().equals(topicEnds)) {
        known = new ByError(topicEnds, deadLetters.list(t.getKey(), DeadLetterFilter.ALL));
        byError.put(t.getKey(), known);
      }
      o.put("letters", known.list().letters().size());
      o.put("discarded", known.list().discarded());
      ObjectNode errors = o.putObject("byError");
      known.list().byError().forEach(errors::put);
    }
  }

  @Override
  public void close() {
    lag.close();
    admin.close(Duration.ofSeconds(5));
  }
}
