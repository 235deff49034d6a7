package dev.ordinal.messaging.inbox.internal;

import dev.ordinal.messaging.Servers;
import dev.ordinal.messaging.inbox.InboxConsumerConfig;
import dev.ordinal.messaging.inbox.PoisonMessageException;
import dev.ordinal.messaging.inbox.internal.RecordApplier.Outcome;
import dev.ordinal.messaging.kafka.KafkaRefusals;
import dev.ordinal.runtime.Backoff;
import dev.ordinal.runtime.Loop;
import dev.ordinal.runtime.LoopContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jooq.DSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One life of an inbox consumer's poll loop per {@link #run}: a Kafka consumer from subscription to
 * failure or stop. Each poll: resume the partitions whose backoff is over, poll, let the {@link
 * PriorityLanes} decide what runs now, apply the batch ({@link BatchApplier}), settle each
 * partition (commit past it; or rewind to its failed record and pause it for its {@link
 * PartitionBackoff}; or dead-letter a record failing permanently {@link #PERMANENT_ATTEMPTS}
 * times), store the positions ({@link PositionStore}), then commit the offsets.
 */
public final class PollLoop implements Loop {
  /** Tries of a record failing with a permanent error before it goes to the dead-letter topic. */
  public static final int PERMANENT_ATTEMPTS = 3;

  /** The longest wait before retrying a record that failed because a server did not answer. */
  public static final Duration UNAVAILABLE_BACKOFF = Duration.ofSeconds(1);

  /** The longest the other topics stay paused while priority records keep coming. */
  public static final Duration LANE_MAX_PAUSE = Duration.ofMillis(500);

  static final Duration LANE_PROBE_INTERVAL = Duration.ofMillis(100);

  private static final Logger log = LoggerFactory.getLogger(PollLoop.class);

  private final InboxConsumerConfig config;
  private final InboxMetrics metrics;
  private final RecordApplier records;
  private final BatchApplier batches;
  private final PositionStore positions;
  private final PartitionBackoff backoff;
  private final PermanentFailures permanent = new PermanentFailures();
  private final Runnable onAssigned;
  private final LongSupplier nanoTime = System::nanoTime;
  private PriorityLanes lanes;
  private KafkaConsumer<String, String> consumer;

  /**
   * @param dsl the database of the inbox positions
   * @param inbox each record's transaction
   * @param deadLetters where poison goes; null to count and skip it
   * @param workers the threads applying the records, {@code config.concurrency()} of them
   * @param onAssigned called after each assignment, once the partitions' positions are set
   */
  public PollLoop(
      InboxConsumerConfig config,
      DSLContext dsl,
      InboxTransaction inbox,
      DeadLetterPublisher deadLetters,
      ExecutorService workers,
      InboxMetrics metrics,
      Runnable onAssigned) {
    this.config = config;
    this.metrics = metrics;
    this.records =
        new RecordApplier(config.consumerName(), config.headers(), inbox, deadLetters, metrics);
    this.batches = new BatchApplier(records, workers, config.priorityTopics());
    this.positions = new PositionStore(dsl, config.consumerName());
    this.backoff =
        new PartitionBackoff(
            Backoff.exponential(config.initialBackoff(), config.maxBackoff()),
            UNAVAILABLE_BACKOFF,
            nanoTime);
    this.onAssigned = onAssigned;
  }

  @Override
  public void run(LoopContext ctx) throws InterruptedException {
    batches.reset();
    backoff.clear();
    permanent.clear();
    lanes = new PriorityLanes(LANE_MAX_PAUSE, LANE_PROBE_INTERVAL, nanoTime);
    consumer =
        config
            .clients()
            .consumer(
                "inbox-" + config.consumerName(),
                consumerProps(),
                new StringDeserializer(),
                new StringDeserializer());
    try {
      ctx.onStop(consumer::wakeup);
      consumer.subscribe(config.topics(), new Rebalance());
      while (ctx.running()) {
        pollOnce(ctx);
      }
    } catch (WakeupException e) {
      if (ctx.running()) {
        throw e;
      }
    } catch (GroupAuthorizationException | TopicAuthorizationException e) {
      // the group or a topic this consumer needs: its user lacks the ACL (fetch, join, commit)
      throw KafkaRefusals.notAuthorized(config.clients(), "READ", "its group or topics", e);
    } finally {
      consumer.close(Duration.ofSeconds(5));
    }
  }

  private Map<String, Object> consumerProps() {
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.GROUP_ID_CONFIG, config.groupId());
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    if (!config.priorityTopics().isEmpty()) {
      // a poll is applied as a whole before the next one: smaller polls let a priority record
      // in sooner
      props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 100);
      // the broker answers one connection's requests in order: a fetch it holds open waiting for
      // data (500 ms by default) would delay the lane probe's end-offset request behind it
      props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
    }
    props.putAll(config.kafka());
    return props;
  }

  /** One poll and its batch, up to the commit. */
  private void pollOnce(LoopContext ctx) throws InterruptedException {
    resumeDue();
    ConsumerRecords<String, String> polled = consumer.poll(config.pollTimeout());
    Map<TopicPartition, List<ConsumerRecord<String, String>>> batch = lanes(polled);
    if (batch.isEmpty()) {
      if (!backoff.anyFailing()) {
        ctx.healthy();
      }
      return;
    }
    long applying = nanoTime.getAsLong();
    Map<TopicPartition, Failure> firstFailed = batches.apply(batch, ctx);
    metrics.applyTime.record(nanoTime.getAsLong() - applying, TimeUnit.NANOSECONDS);
    Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
    Throwable cause = null;
    for (Map.Entry<TopicPartition, List<ConsumerRecord<String, String>>> e : batch.entrySet()) {
      Throwable failed = settle(e.getKey(), e.getValue(), firstFailed.get(e.getKey()), commit);
      cause = failed == null ? cause : failed;
    }
    long storing = nanoTime.getAsLong();
    positions.store(commit);
    long committing = nanoTime.getAsLong();
    metrics.positionsTime.record(committing - storing, TimeUnit.NANOSECONDS);
    commit(commit);
    metrics.commitTime.record(nanoTime.getAsLong() - committing, TimeUnit.NANOSECONDS);
    if (cause != null) {
      // logged per message already; the loop's health shows it, and it counts as a restart
      ctx.failed(cause);
      batches.failed();
    } else if (!backoff.anyFailing()) {
      ctx.healthy();
    }
  }

  /**
   * Settles one partition of the batch: commits past its records; or, for its first failed record,
   * dead-letters it (a permanent error tried {@link #PERMANENT_ATTEMPTS} times) and moves on, or
   * rewinds to it and pauses the partition alone for its backoff.
   *
   * @return the failure's cause, or null when the partition moves on
   */
  private Throwable settle(
      TopicPartition tp,
      List<ConsumerRecord<String, String>> rs,
      Failure failed,
      Map<TopicPartition, OffsetAndMetadata> commit) {
    if (failed == null) {
      backoff.passed(tp);
      permanent.passed(tp);
      commit.put(tp, new OffsetAndMetadata(rs.get(rs.size() - 1).offset() + 1));
      return null;
    }
    if (failed.permanent()
        && permanent.failed(tp, failed.offset()) >= PERMANENT_ATTEMPTS
        && parked(failed)) {
      // the partition goes on from the next record at once; the rest of the batch is polled
      // again (the inbox drops what was applied of it)
      permanent.passed(tp);
      backoff.passed(tp);
      consumer.seek(tp, failed.offset() + 1);
      commit.put(tp, new OffsetAndMetadata(failed.offset() + 1));
      return null;
    }
    consumer.seek(tp, failed.offset());
    if (failed.offset() > rs.get(0).offset()) {
      commit.put(tp, new OffsetAndMetadata(failed.offset()));
    }
    backoff.failed(tp, Servers.isUnavailable(failed.cause()));
    // this partition alone waits: the others go on meanwhile
    consumer.pause(List.of(tp));
    return failed.cause();
  }

  /** Dead-letters a record that failed permanently; false when it could not be sent. */
  private boolean parked(Failure failed) {
    PoisonMessageException reason =
        new PoisonMessageException(
            "permanent error after "
                + PERMANENT_ATTEMPTS
                + " attempts: "
                + ErrorKinds.describe(failed.cause()),
            failed.cause());
    return records.deadLetter(failed.record(), reason).outcome() == Outcome.DEAD_LETTERED;
  }

  /** Commits {@code offsets}; a commit the group refused (this member was evicted) is not fatal. */
  private void commit(Map<TopicPartition, OffsetAndMetadata> offsets) {
    if (offsets.isEmpty()) {
      return;
    }
    try {
      consumer.commitSync(offsets);
    } catch (CommitFailedException | RebalanceInProgressException e) {
      metrics.commitsRefused.increment();
      // the group moved on without this member (a batch longer than max.poll.interval.ms): its
      // partitions may be another's now. The next poll rejoins; whatever was applied and not
      // committed comes again and the inbox drops it.
      log.warn(
          "{}: offsets not committed, the group rebalanced meanwhile; rejoining: {}",
          config.consumerName(),
          e.getMessage());
    }
  }

  /** Resumes the partitions whose backoff is over. */
  private void resumeDue() {
    List<TopicPartition> due = new ArrayList<>(backoff.due());
    if (due.isEmpty()) {
      return;
    }
    due.retainAll(consumer.assignment());
    // a partition the priority lane holds back is paused again by the lane at this poll
    consumer.resume(due);
  }

  /**
   * Priority lanes: while records wait on a priority topic beyond the ones in hand, the other
   * topics' partitions are paused and their records in this poll are given back (the partition is
   * rewound to the first of them), so a person's request does not queue behind thousands of
   * scheduled ones; when the lanes say so, the others resume. Whether anything waits is asked of
   * the broker (end offsets against this consumer's positions), since the fetch queue hands over
   * buffered records of other topics first.
   *
   * @return the records to apply now, by partition
   */
  private Map<TopicPartition, List<ConsumerRecord<String, String>>> lanes(
      ConsumerRecords<String, String> polled) {
    Map<TopicPartition, List<ConsumerRecord<String, String>>> batch = new LinkedHashMap<>();
    for (TopicPartition tp : polled.partitions()) {
      batch.put(tp, polled.records(tp));
    }
    if (config.priorityTopics().isEmpty()) {
      return batch;
    }
    List<TopicPartition> priority = new ArrayList<>();
    List<TopicPartition> others = new ArrayList<>();
    for (TopicPartition tp : consumer.assignment()) {
      (config.priorityTopics().contains(tp.topic()) ? priority : others).add(tp);
    }
    boolean priorityInHand = priority.stream().anyMatch(tp -> !polled.records(tp).isEmpty());
    boolean othersInHand = others.stream().anyMatch(tp -> !polled.records(tp).isEmpty());
    switch (lanes.decide(priorityInHand, othersInHand, () -> probe(priority))) {
      case ALL -> consumer.resume(others.stream().filter(tp -> !backoff.isWaiting(tp)).toList());
      case PRIORITY_ONLY -> holdBack(others, batch);
      case OTHERS_TURN -> {
        // the others' records are applied; nothing is paused or resumed
      }
    }
    return batch;
  }

  /** Whether records wait on the priority partitions beyond this consumer's positions. */
  private PriorityLanes.Probe probe(List<TopicPartition> priority) {
    if (priority.isEmpty()) {
      return PriorityLanes.Probe.NO_ANSWER;
    }
    try {
      Map<TopicPartition, Long> ends = consumer.endOffsets(priority, Duration.ofSeconds(1));
      for (TopicPartition tp : priority) {
        Long end = ends.get(tp);
        if (end != null && end > consumer.position(tp, Duration.ofSeconds(1))) {
          return PriorityLanes.Probe.WAITING;
        }
      }
      return PriorityLanes.Probe.NONE_WAITING;
    } catch (TimeoutException e) {
      // the broker did not answer in time: keep the lanes as they are until the next probe
      return PriorityLanes.Probe.NO_ANSWER;
    }
  }

  /** Pauses {@code others} and gives their records in {@code batch} back. */
  private void holdBack(
      List<TopicPartition> others,
      Map<TopicPartition, List<ConsumerRecord<String, String>>> batch) {
    consumer.pause(others);
    for (TopicPartition tp : others) {
      List<ConsumerRecord<String, String>> given = batch.remove(tp);
      if (given != null && !given.isEmpty()) {
        consumer.seek(tp, given.get(0).offset());
      }
    }
  }

  /**
   * A batch is finished and committed before the next poll: nothing is in flight at a rebalance.
   */
  private final class Rebalance implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      forget(partitions);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      forget(partitions);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      long rewound = positions.startFromDatabase(consumer, partitions);
      if (rewound > 0) {
        metrics.rewound.increment(rewound);
      }
      onAssigned.run();
    }

    private void forget(Collection<TopicPartition> partitions) {
      backoff.forget(partitions);
      permanent.forget(partitions);
    }
  }
}
