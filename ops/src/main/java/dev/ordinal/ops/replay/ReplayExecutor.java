package dev.ordinal.ops.replay;

import dev.ordinal.messaging.RefusedException;
import dev.ordinal.ops.internal.KafkaCalls;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.UnknownMemberIdException;

/**
 * Applies a {@link ReplayPlan}: sets the group's committed offsets to the plan's targets with
 * {@code alterConsumerGroupOffsets}, and records it in the {@link ReplayLog} in the same step.
 *
 * <p>Right before moving anything it plans again and refuses when the plan no longer holds: a
 * member joined, a committed offset moved since the plan was made (not checked for the group a
 * replay into a new group reads, which is never moved), or a target fell out of the log
 * (retention). So what was shown as a dry run is exactly what is executed, or nothing is.
 */
public final class ReplayExecutor {
  private final Admin admin;
  private final ReplayPlanner planner;
  private final ReplayLog log;
  private final Clock clock;
  private final Duration timeout;

  /**
   * @param admin a client of the cluster; not closed here
   * @param log where executed replays are recorded
   * @param clock the replay's {@code executed_at}
   * @param timeout how long each admin call may take
   */
  public ReplayExecutor(Admin admin, ReplayLog log, Clock clock, Duration timeout) {
    this.admin = Objects.requireNonNull(admin, "admin");
    this.log = Objects.requireNonNull(log, "log");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
    this.planner = new ReplayPlanner(admin, clock, timeout);
  }

  /**
   * Moves the offsets as {@code plan} says and records it.
   *
   * @param executedBy who executes it (the operating-system user), kept in the log
   * @param consumer the inbox consumer name whose rows a {@link ReplayReport} reads, and whose
   *     stored positions a skip moves forward with the group's offsets ({@link ReplayLog#record});
   *     null for none
   * @return the replay as recorded
   * @throws RefusedException when the plan no longer holds; nothing was changed
   */
  public ExecutedReplay execute(ReplayPlan plan, String executedBy, String consumer) {
    return executeAll(List.of(plan), executedBy, consumer, line -> {}).get(0);
  }

  /**
   * Executes several plans (one per topic, as {@link ReplayPlanner#planAllTopics} or {@link
   * ReplayPlanner#planFromFile} make them): every plan is checked as {@link #execute} checks it
   * before any moves, then each is moved and recorded in turn, one replay-log entry per plan.
   *
   * @param progress told one line per partition moved, once its topic's move is recorded
   * @return the replays as recorded, in the plans' order
   * @throws RefusedException when a plan no longer holds; nothing was changed. A failure while
   *     moving a later topic leaves the earlier ones moved and recorded.
   */
  public List<ExecutedReplay> executeAll(
      List<ReplayPlan> plans, String executedBy, String consumer, Consumer<String> progress) {
    Objects.requireNonNull(executedBy, "executedBy");
    plans.forEach(this::check);
    List<ExecutedReplay> done = new ArrayList<>();
    for (ReplayPlan plan : plans) {
      ExecutedReplay replay = move(plan, executedBy, consumer);
      replay
          .moves()
          .forEach(
              m ->
                  progress.accept(
                      String.format(
                          "moved group %s topic %s partition %d: %d -> %d",
                          replay.group(), replay.topic(), m.partition(), m.from(), m.to())));
      done.add(replay);
    }
    return done;
  }

  private void check(ReplayPlan plan) {
    ReplayPlan now = planner.plan(plan.request());
    Map<Integer, PartitionPlan> fresh = new HashMap<>();
    now.partitions().forEach(p -> fresh.put(p.partition(), p));
    for (PartitionPlan p : plan.partitions()) {
      PartitionPlan f = fresh.get(p.partition());
      // replaying into a new group, the group read is never moved: its offsets may go on
      if (f == null || !plan.request().intoNewGroup() && f.current() != p.current()) {
        throw new RefusedException(
            "The committed offset of consumer group "
                + plan.group()
                + " on "
                + plan.topic()
                + " partition "
                + p.partition()
                + " moved from "
                + p.current()
                + " to "
                + (f == null ? "nothing" : f.current())
                + " since the plan was made; plan again.");
      }
      if (p.target() < f.earliest() || p.target() > f.latest()) {
        throw new RefusedException(
            "The target "
                + p.target()
                + " of "
                + plan.topic()
                + " partition "
                + p.partition()
                + " is no longer in the log (earliest "
                + f.earliest()
                + ", latest "
                + f.latest()
                + "); plan again.");
      }
    }
  }

  private ExecutedReplay move(ReplayPlan plan, String executedBy, String consumer) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    plan.partitions()
        .forEach(
            p ->
                offsets.put(
                    new TopicPartition(plan.topic(), p.partition()),
                    new OffsetAndMetadata(p.target())));
    // taken before the move: whatever the group applies after it is processed later than this
    // microseconds: what timestamptz keeps, so the returned replay equals the recorded one
    Instant at = clock.instant().truncatedTo(ChronoUnit.MICROS);
    return log.record(
        plan,
        executedBy,
        consumer,
        at,
        () -> {
          try {
            KafkaCalls.awaitOn(
                admin.alterConsumerGroupOffsets(plan.group(), offsets).all(),
                timeout,
                "moving the offsets of consumer group " + plan.group(),
                plan.group(),
                plan.topic());
          } catch (GroupNotEmptyException | UnknownMemberIdException e) {
            throw new RefusedException(
                "Consumer group "
                    + plan.group()
                    + " got an active member while its offsets were being moved, so nothing was"
                    + " changed; stop its consumers and try again.",
                e);
          }
        });
  }
}
