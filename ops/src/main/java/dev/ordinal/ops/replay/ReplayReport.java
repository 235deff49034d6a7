package dev.ordinal.ops.replay;

import static dev.ordinal.messaging.db.Tables.INBOX;

import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jooq.DSLContext;

/**
 * What an executed replay did to one inbox consumer: how many records it redelivered, how many of
 * them changed the consumer's database (new effects) and how many the inbox recognised as already
 * applied (duplicates).
 *
 * <p>Per partition moved from {@code from} back to {@code to}:
 *
 * <ul>
 *   <li>{@code redelivered = max(0, from - to)};
 *   <li>{@code newEffects} = inbox rows of the consumer whose first application was at an offset in
 *       {@code [to, from)} of that partition and whose {@code processed_at} is after the replay's
 *       {@code executed_at}. Every record in that range had been handled before the replay (the
 *       group had committed {@code from}), so a row for one of them written after the replay can
 *       only come from the replay: a message applied for the first time, such as one dead-lettered
 *       before and accepted now;
 *   <li>{@code duplicates = redelivered - newEffects}.
 * </ul>
 *
 * <p>Caveats: the duplicates are exact only once the group has read past {@code from} on every
 * partition ({@link #caughtUp()}; {@link PartitionReport#committed()} says how far it has come);
 * before that, records not yet read count as duplicates. A redelivered record that is dead-lettered
 * again also counts as a duplicate (it has no inbox row). {@code processed_at} comes from the
 * consumer's clock and {@code executed_at} from the operator's, so clocks apart by more than the
 * time between the replay and the first redelivered record would misplace rows.
 *
 * @param consumer the inbox consumer name the counts are for
 * @param partitions one per partition moved, by partition
 */
public record ReplayReport(
    ExecutedReplay replay, String consumer, List<PartitionReport> partitions) {

  public ReplayReport {
    Objects.requireNonNull(replay, "replay");
    Objects.requireNonNull(consumer, "consumer");
    partitions = List.copyOf(partitions);
  }

  /**
   * One partition of a report.
   *
   * @param committed the group's committed offset now, -1 when it has none
   */
  public record PartitionReport(
      int partition, long from, long to, long committed, long redelivered, long newEffects) {

    /** The group has read every redelivered record of this partition. */
    public boolean caughtUp() {
      return committed >= from;
    }

    /** Redelivered records the group has read so far (committed). */
    public long read() {
      return Math.max(0, Math.min(committed, from) - to);
    }

    public long duplicates() {
      return redelivered - newEffects;
    }
  }

  /**
   * Reads the report of {@code replay} for {@code consumer} from the inbox.
   *
   * @param inbox a context on the schema holding the consumer's inbox
   * @param committed the group's committed offsets now, by partition ({@link
   *     ReplayPlanner#committedOffsets}); a partition without one counts as not caught up
   */
  public static ReplayReport of(
      ExecutedReplay replay, String consumer, DSLContext inbox, Map<Integer, Long> committed) {
    List<PartitionReport> partitions = new ArrayList<>();
    for (ExecutedReplay.Move m : replay.moves()) {
      long newEffects =
          m.redelivered() == 0
              ? 0
              : inbox.fetchCount(
                  INBOX,
                  INBOX
                      .CONSUMER
                      .eq(consumer)
                      .and(INBOX.TOPIC.eq(replay.topic()))
                      .and(INBOX.PARTITION_NO.eq(m.partition()))
                      .and(INBOX.RECORD_OFFSET.ge(m.to()))
                      .and(INBOX.RECORD_OFFSET.lt(m.from()))
                      .and(INBOX.PROCESSED_AT.gt(replay.executedAt().atOffset(ZoneOffset.UTC))));
      partitions.add(
          new PartitionReport(
              m.partition(),
              m.from(),
              m.to(),
              committed.getOrDefault(m.partition(), -1L),
              m.redelivered(),
              newEffects));
    }
    return new ReplayReport(replay, consumer, partitions);
  }

  public long redelivered() {
    return partitions.stream().mapToLong(PartitionReport::redelivered).sum();
  }

  public long newEffects() {
    return partitions.stream().mapToLong(PartitionReport::newEffects).sum();
  }

  /** {@code redelivered - newEffects}; exact once {@link #caughtUp()}. */
  public long duplicates() {
    return redelivered() - newEffects();
  }

  /** Redelivered records the group has read so far. */
  public long read() {
    return partitions.stream().mapToLong(PartitionReport::read).sum();
  }

  /** The group has read past {@code from} on every partition moved: the counts are final. */
  public boolean caughtUp() {
    return partitions.stream().allMatch(PartitionReport::caughtUp);
  }
}
