package dev.ordinal.ops.replay;

import dev.ordinal.messaging.RefusedException;
import dev.ordinal.ops.internal.KafkaCalls;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

/**
 * Plans a replay: reads a consumer group's committed offsets and the topic's log bounds, resolves
 * the {@link ReplayTarget} per partition, and says what would happen, without changing anything.
 *
 * <p>The rules a plan is held to, each refused with a {@link RefusedException} sentence:
 *
 * <ul>
 *   <li>The topic, the group and every partition asked for exist.
 *   <li>The group has no active member: offsets moved under a running consumer are overwritten by
 *       its next commit, and Kafka refuses to change them anyway. Replaying into a new group
 *       ({@link ReplayRequest#into}), the group read is never moved and may be running; the new one
 *       has no member and no committed offset on the partitions moved.
 *   <li>The group has a committed offset on every partition moved (a partition whose log is empty
 *       counts as being at its end): otherwise nobody can say what the move redelivers or skips.
 *   <li>Every target offset lies in the partition's log, {@code earliest <= target <= latest}; the
 *       refusal names both bounds. A time in the future is refused.
 * </ul>
 *
 * <p>Per partition, {@code redeliver = max(0, current - target)} records are delivered again and
 * {@code skip = max(0, target - current)} are never delivered. Offsets are read at {@code
 * read_committed}, as the inbox consumers read.
 */
public final class ReplayPlanner {
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  private final Admin admin;
  private final Clock clock;
  private final Duration timeout;

  /**
   * @param admin a client of the cluster; not closed here
   * @param clock "now" for {@link ReplayTarget.ByDuration} and the future-time check
   * @param timeout how long each admin call may take
   */
  public ReplayPlanner(Admin admin, Clock clock, Duration timeout) {
    this.admin = Objects.requireNonNull(admin, "admin");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
  }

  /**
   * The plan for {@code request}, as of now.
   *
   * @throws RefusedException when a rule above is broken; nothing was changed
   * @throws dev.ordinal.messaging.MessagingException when Kafka does not answer in time
   */
  public ReplayPlan plan(ReplayRequest request) {
    Instant now = clock.instant();
    String topic = request.topic();
    List<Integer> all = partitionsOf(topic);
    SortedSet<Integer> chosen =
        request.partitions().isEmpty() ? new TreeSet<>(all) : request.partitions();
    List<Integer> missing = chosen.stream().filter(p -> !all.contains(p)).toList();
    if (!missing.isEmpty()) {
      throw new RefusedException(
          "Topic "
              + topic
              + " has partitions 0 to "
              + (all.size() - 1)
              + ", not "
              + join(missing)
              + ".");
    }
    List<TopicPartition> tps = chosen.stream().map(p -> new TopicPartition(topic, p)).toList();
    if (request.intoNewGroup()) {
      checkNewGroup(request.group(), topic, chosen);
    } else {
      checkNoActiveMembers(request.group());
    }
    Map<Integer, Long> committed = committedOffsets(request.source(), topic);
    if (committed.isEmpty()) {
      throw new RefusedException(
          "Consumer group "
              + request.source()
              + " has no committed offset on topic "
              + topic
              + ": it has never consumed it, so there is nothing to replay.");
    }
    Map<Integer, Long> earliest = offsets(tps, OffsetSpec.earliest(), "the earliest offsets");
    Map<Integer, Long> latest = offsets(tps, OffsetSpec.latest(), "the latest offsets");
    Map<Integer, Long> byTime = Map.of();
    Instant at = instant(request.target(), now);
    if (at != null) {
      if (at.isAfter(now)) {
        throw new RefusedException(
            "The time " + at + " is in the future (now is " + now + "); give a past time.");
      }
      byTime = offsets(tps, OffsetSpec.forTimestamp(at.toEpochMilli()), "the offsets at " + at);
    }

    List<Integer> uncommitted = new ArrayList<>();
    List<String> outside = new ArrayList<>();
    List<PartitionPlan> plans = new ArrayList<>();
    for (int p : chosen) {
      long first = earliest.get(p);
      long end = latest.get(p);
      Long current = committed.get(p);
      if (current == null) {
        if (first != end) {
          uncommitted.add(p);
          continue;
        }
        // an empty log: whatever the consumer's reset policy, it starts at its end
        current = end;
      }
      long target = resolve(request.target(), p, current, first, end, byTime.get(p));
      if (target < first || target > end) {
        outside.add(
            "partition " + p + " to " + target + " (earliest " + first + ", latest " + end + ")");
      }
      plans.add(new PartitionPlan(p, current, target, first, end));
    }
    if (!uncommitted.isEmpty()) {
      throw new RefusedException(
          "Consumer group "
              + request.source()
              + " has no committed offset on "
              + topic
              + " partition(s) "
              + join(uncommitted)
              + ", so what a move would redeliver or skip there is unknown; leave them out of the"
              + " partitions to move.");
    }
    if (!outside.isEmpty()) {
      throw new RefusedException(
          "The target is outside the log of topic "
              + topic
              + ": "
              + String.join("; ", outside)
              + ".");
    }
    return new ReplayPlan(request, now, plans);
  }

  /**
   * One plan per topic {@code group} has committed offsets on ({@code --all-topics}), by topic
   * name, each to {@code target}. Every plan is made before any is returned: one refusal refuses
   * them all.
   *
   * @param into the group to move instead, planned from {@code group}'s offsets ({@link
   *     ReplayRequest#into}); null to move {@code group}
   * @throws RefusedException as {@link #plan}, or when the group has no committed offset at all
   */
  public List<ReplayPlan> planAllTopics(String group, String into, ReplayTarget target) {
    if (into == null) {
      checkNoActiveMembers(group);
    }
    Map<TopicPartition, OffsetAndMetadata> all =
        KafkaCalls.awaitOn(
            admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata(),
            timeout,
            "reading the committed offsets of consumer group " + group,
            group,
            null);
    SortedSet<String> topics = new TreeSet<>();
    all.forEach(
        (tp, o) -> {
          if (o != null && o.offset() >= 0) {
            topics.add(tp.topic());
          }
        });
    if (topics.isEmpty()) {
      throw new RefusedException(
          "Consumer group " + group + " has no committed offset on any topic: nothing to replay.");
    }
    return topics.stream()
        .map(t -> plan(ReplayRequest.allPartitions(group, t, target).into(into)))
        .toList();
  }

  /**
   * The plans a plan file gives {@code group} ({@link OffsetsCsv}), one per topic in it: exactly
   * the partitions it names move, to its offsets. Every plan is made before any is returned.
   *
   * @throws RefusedException as {@link #plan} (an unknown topic or partition, an offset outside the
   *     log) or {@link OffsetsCsv#read}
   * @param into as for {@link #planAllTopics}
   */
  public List<ReplayPlan> planFromFile(String group, String into, Path file) {
    List<ReplayPlan> plans = new ArrayList<>();
    OffsetsCsv.read(file, group)
        .forEach(
            (topic, offsets) ->
                plans.add(
                    plan(
                        new ReplayRequest(
                                group,
                                topic,
                                new TreeSet<>(offsets.keySet()),
                                new ReplayTarget.FromFile(file.toString(), offsets))
                            .into(into))));
    return plans;
  }

  /**
   * Refuses a group that has members, or that does not exist.
   *
   * @throws RefusedException naming the members (up to three) and what to do
   */
  public void checkNoActiveMembers(String group) {
    checkIdle(group, true);
  }

  /**
   * Refuses a group to replay into ({@code --into-group}) that has members, or committed offsets on
   * any of {@code partitions} of {@code topic}: it must start from the plan. It need not exist.
   */
  private void checkNewGroup(String group, String topic, SortedSet<Integer> partitions) {
    checkIdle(group, false);
    List<Integer> taken =
        committedOffsets(group, topic).keySet().stream().filter(partitions::contains).toList();
    if (!taken.isEmpty()) {
      throw new RefusedException(
          "Consumer group "
              + group
              + " already has committed offsets on "
              + topic
              + " partition(s) "
              + join(taken)
              + ", so it is not new; give --into-group a group that has none there.");
    }
  }

  private void checkIdle(String group, boolean mustExist) {
    ConsumerGroupDescription d;
    try {
      d =
          KafkaCalls.awaitOn(
              admin.describeConsumerGroups(List.of(group)).describedGroups().get(group),
              timeout,
              "describing consumer group " + group,
              group,
              null);
    } catch (GroupIdNotFoundException e) {
      if (mustExist) {
        throw unknownGroup(group, e);
      }
      return;
    }
    if (d.groupState() == GroupState.DEAD) {
      if (mustExist) {
        throw unknownGroup(group, null);
      }
      return;
    }
    if (!d.members().isEmpty() || d.groupState() != GroupState.EMPTY) {
      String who =
          d.members().stream()
              .limit(3)
              .map(MemberDescription::clientId)
              .collect(Collectors.joining(", "));
      throw new RefusedException(
          "Consumer group "
              + group
              + " has "
              + d.members().size()
              + " active member(s)"
              + (who.isEmpty() ? "" : " (" + who + (d.members().size() > 3 ? ", ..." : "") + ")")
              + " and is "
              + d.groupState()
              + "; stop its consumers and wait until the group is "
              + GroupState.EMPTY
              + " before moving its offsets.");
    }
  }

  /**
   * The group's committed offsets on {@code topic}, by partition; partitions without one absent.
   */
  public Map<Integer, Long> committedOffsets(String group, String topic) {
    List<TopicPartition> tps = partitionsOf(topic).stream().map(p -> tp(topic, p)).toList();
    Map<TopicPartition, OffsetAndMetadata> found =
        KafkaCalls.awaitOn(
            admin
                .listConsumerGroupOffsets(
                    Map.of(group, new ListConsumerGroupOffsetsSpec().topicPartitions(tps)))
                .partitionsToOffsetAndMetadata(group),
            timeout,
            "reading the committed offsets of consumer group " + group,
            group,
            topic);
    Map<Integer, Long> offsets = new TreeMap<>();
    found.forEach(
        (tp, o) -> {
          if (o != null && o.offset() >= 0 && tp.topic().equals(topic)) {
            offsets.put(tp.partition(), o.offset());
          }
        });
    return offsets;
  }

  private List<Integer> partitionsOf(String topic) {
    return KafkaCalls.partitionsOf(admin, topic, timeout);
  }

  private Map<Integer, Long> offsets(List<TopicPartition> tps, OffsetSpec spec, String what) {
    Map<TopicPartition, OffsetSpec> query = new HashMap<>();
    tps.forEach(tp -> query.put(tp, spec));
    Map<TopicPartition, ListOffsetsResultInfo> found =
        KafkaCalls.awaitOn(
            admin.listOffsets(query, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all(),
            timeout,
            "listing " + what + " of topic " + tps.get(0).topic(),
            null,
            tps.get(0).topic());
    Map<Integer, Long> offsets = new HashMap<>();
    found.forEach((tp, info) -> offsets.put(tp.partition(), info.offset()));
    return offsets;
  }

  private Instant instant(ReplayTarget target, Instant now) {
    if (target instanceof ReplayTarget.ToDatetime t) {
      return t.at();
    }
    if (target instanceof ReplayTarget.ByDuration d) {
      return now.minus(d.back());
    }
    return null;
  }

  private static long resolve(
      ReplayTarget target, int partition, long current, long earliest, long latest, Long byTime) {
    if (target instanceof ReplayTarget.ToOffset o) {
      return o.offset();
    }
    if (target instanceof ReplayTarget.ShiftBy s) {
      return current + s.delta();
    }
    if (target instanceof ReplayTarget.ToEarliest) {
      return earliest;
    }
    if (target instanceof ReplayTarget.ToLatest) {
      return latest;
    }
    if (target instanceof ReplayTarget.FromFile f) {
      return f.offsets().get(partition);
    }
    // by time: no record at or after the time means the end of the log
    return byTime == null || byTime < 0 ? latest : byTime;
  }

  private static RefusedException unknownGroup(String group, Throwable cause) {
    return new RefusedException(
        "Consumer group " + group + " does not exist (no members, no committed offsets).", cause);
  }

  private static TopicPartition tp(String topic, int partition) {
    return new TopicPartition(topic, partition);
  }

  private static String join(List<Integer> partitions) {
    return partitions.stream().map(String::valueOf).collect(Collectors.joining(", "));
  }
}
