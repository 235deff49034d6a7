package dev.ordinal.ops.replay;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A replay as the replay log keeps it: who moved which group's offsets on which partitions, from
 * where to where, and when.
 *
 * @param id the replay's id, shared by its rows in {@code replay_log}
 * @param target how the target was asked for ({@link ReplayTarget#describe()})
 * @param executedBy the operating-system user who executed it
 * @param consumer the inbox consumer name whose rows tell duplicates from new effects, if given
 * @param moves one per partition moved, by partition
 */
public record ExecutedReplay(
    long id,
    String group,
    String topic,
    String target,
    String executedBy,
    Instant executedAt,
    Optional<String> consumer,
    List<Move> moves) {

  public ExecutedReplay {
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(executedAt, "executedAt");
    consumer = consumer == null ? Optional.empty() : consumer;
    moves = List.copyOf(moves);
  }

  /** One partition's committed offset, from {@code from} (before) to {@code to}. */
  public record Move(int partition, long from, long to) {
    /** Records delivered again: {@code max(0, from - to)}. */
    public long redelivered() {
      return Math.max(0, from - to);
    }
  }

  /** Records delivered again over all partitions. */
  public long redelivered() {
    return moves.stream().mapToLong(Move::redelivered).sum();
  }
}
