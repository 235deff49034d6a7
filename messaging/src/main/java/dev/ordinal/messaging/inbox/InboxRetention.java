package dev.ordinal.messaging.inbox;

import static dev.ordinal.messaging.db.Tables.INBOX;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.RetentionJob;
import dev.ordinal.runtime.Supervisor;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.DescribeConfigsResult;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the inbox table from growing without bound: deletes one consumer's rows whose {@code
 * processed_at} is older than {@link InboxRetentionConfig#retention() retention}, in small batches,
 * either once ({@link #runOnce}) or every {@link InboxRetentionConfig#interval() interval} on its
 * own thread ({@link #start}).
 *
 * <p>An inbox row is what makes a redelivered message a duplicate: once it is deleted, the same
 * message delivered again is applied again. So a row must outlive every way the message can come
 * back: an operator replaying the topic ({@link InboxRetentionConfig#maxReplayWindow()}) and the
 * record still being in Kafka at all. {@link #checkCoversReplay} refuses a retention shorter than
 * either, and {@link #start} runs it first.
 *
 * <p>What the caller can rely on:
 *
 * <ul>
 *   <li>Only rows whose {@code consumer} is {@link InboxRetentionConfig#consumer()} are deleted.
 *   <li>Each batch is one {@code DELETE} of at most {@code batchSize} rows, oldest {@code
 *       processed_at} first, in its own short transaction: a run never holds locks on more than one
 *       batch, and a failure keeps the batches already committed.
 *   <li>The cutoff is {@code now(clock) - retention}, taken once at the start of a run; a row is
 *       deleted only when its {@code processed_at} is strictly before it.
 *   <li>Several instances (one per service replica) may run for the same consumer: rows another
 *       instance is deleting, or a consumer is holding, are skipped, not waited for.
 * </ul>
 *
 * <p>Metrics, tagged with {@code consumer}: counters {@code ordinal.inbox.retention.deleted} (rows)
 * and {@code ordinal.inbox.retention.batches} (delete statements), and timer {@code
 * ordinal.inbox.retention.runs} tagged {@code outcome} = {@code success} or {@code failure}.
 * Instances that share a registry and a consumer share these meters.
 */
public final class InboxRetention extends RetentionJob {
  /**
   * The retention of a topic that keeps its records forever, for {@link #checkCoversReplay}; a
   * negative duration (Kafka's {@code retention.ms=-1}) means the same.
   */
  public static final Duration FOREVER = ChronoUnit.FOREVER.getDuration();

  private static final Logger log = LoggerFactory.getLogger(InboxRetention.class);

  private final InboxRetentionConfig config;
  private final DSLContext dsl;

  /**
   * @param dsl a context on the schema holding the inbox; each batch runs in its own transaction on
   *     it
   * @param clock the cutoff is computed from it
   */
  public InboxRetention(
      InboxRetentionConfig config, DSLContext dsl, MeterRegistry registry, Clock clock) {
    super("inbox", "consumer", config.consumer(), registry, clock);
    this.config = config;
    this.dsl = dsl;
  }

  /**
   * Refuses a retention that a replay could outrun: one shorter than {@code maxReplayWindow}, or
   * shorter than the time any topic the consumer reads may keep a record (a record still in Kafka
   * can be replayed after its inbox row is gone). A topic that keeps records forever can never be
   * covered. With {@link InboxRetentionConfig#override() override}, each such gap is logged as a
   * WARN saying what may be applied twice, and nothing is thrown.
   *
   * @param topicRetentions for each topic the consumer reads, how long it may keep a record: {@link
   *     #FOREVER} or a negative duration for no limit; {@link #topicRetentions} reads them from
   *     Kafka. Empty checks only the replay window.
   * @throws ConfigurationException one sentence naming the inbox retention, the longest of the
   *     windows it falls short of, and what to change; fix the setting rather than retry
   */
  public static void checkCoversReplay(
      InboxRetentionConfig config, Map<String, Duration> topicRetentions) {
    List<Gap> gaps = new ArrayList<>();
    Duration retention = config.retention();
    if (retention.compareTo(config.maxReplayWindow()) < 0) {
      gaps.add(new Gap(null, config.maxReplayWindow()));
    }
    new TreeMap<>(topicRetentions)
        .forEach(
            (topic, kept) -> {
              Objects.requireNonNull(kept, () -> "retention of topic " + topic);
              Duration needed = kept.isNegative() ? FOREVER : kept;
              if (retention.compareTo(needed) < 0) {
                gaps.add(new Gap(topic, needed));
              }
            });
    if (gaps.isEmpty()) {
      return;
    }
    if (config.override()) {
      gaps.forEach(g -> log.warn(g.warning(config)));
      return;
    }
    // name the longest gap: raising the retention to it closes all of them
    Gap widest =
        gaps.stream()
            .max(Comparator.comparing(Gap::needed))
            .orElseThrow(IllegalStateException::new);
    throw new ConfigurationException(widest.refusal(config));
  }

  /** What a retention falls short of: the replay window ({@code topic} null) or a topic's. */
  private record Gap(String topic, Duration needed) {
    String refusal(InboxRetentionConfig c) {
      if (topic == null) {
        return shortfall(c)
            + "; raise the retention or pass "
            + InboxRetentionConfig.OVERRIDE.option();
      }
      if (needed.equals(FOREVER)) {
        return shortfall(c)
            + ", so a replay of it could apply a message twice; give the topic a finite"
            + " retention.ms or pass "
            + InboxRetentionConfig.OVERRIDE.option();
      }
      return shortfall(c)
          + ", which could be replayed after its inbox row is deleted; raise the retention or pass "
          + InboxRetentionConfig.OVERRIDE.option();
    }

    String warning(InboxRetentionConfig c) {
      return shortfall(c)
          + "; "
          + InboxRetentionConfig.OVERRIDE.option()
          + " is given, so "
          + (topic == null ? "a message" : "a record of topic " + topic)
          + " replayed more than "
          + c.retention()
          + " after it was applied will be applied twice";
    }

    private String shortfall(InboxRetentionConfig c) {
      String head = "Inbox retention " + c.retention() + " for consumer " + c.consumer();
      if (topic == null) {
        return head + " is shorter than the replay window " + needed + " operators may replay";
      }
      if (needed.equals(FOREVER)) {
        return head
            + " cannot cover topic "
            + topic
            + ", which keeps records forever (retention.ms=-1 or compacted)";
      }
      return head + " is shorter than the " + needed + " topic " + topic + " may keep a record";
    }
  }

  /**
   * Reads from Kafka how long each topic may keep a record, for {@link #checkCoversReplay}: {@code
   * retention.ms} plus {@code segment.ms}, because the broker deletes whole segments, and a record
   * stays until the newest record of its segment is {@code retention.ms} old; a segment takes
   * records for up to {@code segment.ms}. {@link #FOREVER} when {@code retention.ms} is {@code -1}
   * or {@code cleanup.policy} lacks {@code delete} (a compacted topic keeps each key's last
   * record). The broker's {@code log.retention.check.interval.ms} (5 min by default) comes on top:
   * leave that much margin.
   *
   * @param admin a client the caller configured (security included) and closes
   * @throws ConfigurationException when a topic does not exist, may not be described, or Kafka does
   *     not answer within {@code timeout}
   */
  public static Map<String, Duration> topicRetentions(
      Admin admin, Collection<String> topics, Duration timeout) {
    Map<String, ConfigResource> resources = new LinkedHashMap<>();
    topics.forEach(t -> resources.put(t, new ConfigResource(ConfigResource.Type.TOPIC, t)));
    DescribeConfigsResult result =
        admin.describeConfigs(
            resources.values(), new DescribeConfigsOptions().timeoutMs((int) timeout.toMillis()));
    Map<String, Duration> kept = new TreeMap<>();
    for (Map.Entry<String, ConfigResource> e : resources.entrySet()) {
      String topic = e.getKey();
      try {
        kept.put(topic, keptFor(topic, result.values().get(e.getValue()).get()));
      } catch (ExecutionException ex) {
        throw new ConfigurationException(
            "Cannot read the retention of topic "
                + topic
                + " from Kafka ("
                + ex.getCause()
                + "); check that the topic exists and that this client may describe its configs",
            ex.getCause());
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        throw new ConfigurationException("Interrupted while reading the retention of " + topic);
      }
    }
    return kept;
  }

  private static Duration keptFor(String topic, Config config) {
    String policy = value(topic, config, TopicConfig.CLEANUP_POLICY_CONFIG);
    boolean deletes =
        List.of(policy.replace(" ", "").split(",")).contains(TopicConfig.CLEANUP_POLICY_DELETE);
    long retentionMs = Long.parseLong(value(topic, config, TopicConfig.RETENTION_MS_CONFIG));
    if (!deletes || retentionMs < 0) {
      return FOREVER;
    }
    long segmentMs = Long.parseLong(value(topic, config, TopicConfig.SEGMENT_MS_CONFIG));
    return Duration.ofMillis(retentionMs).plusMillis(segmentMs);
  }

  private static String value(String topic, Config config, String name) {
    ConfigEntry entry = config.get(name);
    if (entry == null || entry.value() == null) {
      throw new ConfigurationException(
          "Kafka did not return " + name + " of topic " + topic + "; cannot check its retention");
    }
    return entry.value();
  }

  /**
   * Deletes every row of the consumer that is past retention now, batch after batch, until a batch
   * deletes fewer than {@code batchSize} rows. After {@link #close}, a run stops after its first
   * batch.
   *
   * @return the number of rows deleted
   * @throws org.jooq.exception.DataAccessException when a batch fails; the batches before it stay
   *     deleted, and calling again resumes where it stopped
   */
  @Override
  public int runOnce() {
    return run(
        config.retention(),
        config.batchSize(),
        cutoff -> {
          Condition expired =
              INBOX.CONSUMER.eq(config.consumer()).and(INBOX.PROCESSED_AT.lt(cutoff));
          return () ->
              deleteOldest(
                  dsl,
                  INBOX,
                  INBOX.CONSUMER.eq(config.consumer()),
                  INBOX.MESSAGE_ID,
                  expired,
                  INBOX.PROCESSED_AT,
                  config.batchSize());
        });
  }

  /**
   * {@link #start(Map)} checking only the replay window, for when the topics' retention is checked
   * elsewhere. Prefer {@code start(InboxRetention.topicRetentions(admin, topics, timeout))}.
   */
  public InboxRetention start() {
    return start(Map.of());
  }

  /**
   * Checks {@link #checkCoversReplay} with {@code topicRetentions}, then runs {@link #runOnce} now
   * and {@code interval} after the end of each run, under a supervisor of its own (loop {@code
   * inbox-retention}). A failed run is logged and counted; the loop runs again after a backoff.
   *
   * @throws ConfigurationException when the retention does not cover a replay; nothing is started
   *     and nothing deleted
   * @throws IllegalStateException when already started or closed
   */
  public synchronized InboxRetention start(Map<String, Duration> topicRetentions) {
    checkCoversReplay(config, topicRetentions);
    startOwnLoop("inbox-retention-" + config.consumer(), "inbox-retention", config.interval());
    return this;
  }

  /** As {@link #start(Map)}, as loop {@code loopName} of {@code supervisor}. */
  public synchronized InboxRetention start(
      Map<String, Duration> topicRetentions, Supervisor supervisor, String loopName) {
    checkCoversReplay(config, topicRetentions);
    startLoop(supervisor, loopName, config.interval());
    return this;
  }
}
