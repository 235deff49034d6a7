package dev.ordinal.ops.replay;

import dev.ordinal.messaging.ConfigurationException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Where a replay moves a consumer group's committed offsets to, one of the forms Kafka's own tool
 * knows. Each is resolved per partition by {@link ReplayPlanner}, and every resolved offset must
 * lie within the partition's log, from its earliest to its latest offset.
 */
public sealed interface ReplayTarget {

  /** How the target was asked for, in the command line's words (kept in the replay log). */
  String describe();

  /** The same offset on every partition. */
  record ToOffset(long offset) implements ReplayTarget {
    public ToOffset {
      if (offset < 0) {
        throw new ConfigurationException("A target offset must be 0 or more, not " + offset);
      }
    }

    @Override
    public String describe() {
      return "--to-offset " + offset;
    }
  }

  /**
   * On each partition, the first record whose timestamp is at or after {@code at}; the end of the
   * log when every record is older. It must not be in the future.
   */
  record ToDatetime(Instant at) implements ReplayTarget {
    public ToDatetime {
      if (at == null) {
        throw new ConfigurationException("A target time must be set");
      }
    }

    @Override
    public String describe() {
      return "--to-datetime " + at;
    }
  }

  /** As {@link ToDatetime}, at {@code back} before now. */
  record ByDuration(Duration back) implements ReplayTarget {
    public ByDuration {
      if (back == null || back.isNegative() || back.isZero()) {
        throw new ConfigurationException(
            "A duration to go back by must be positive (e.g. PT1H), not " + back);
      }
    }

    @Override
    public String describe() {
      return "--by-duration " + back;
    }
  }

  /** The committed offset plus {@code delta} (negative goes back), per partition. */
  record ShiftBy(long delta) implements ReplayTarget {
    @Override
    public String describe() {
      return "--shift-by " + delta;
    }
  }

  /** The earliest offset still in each partition's log. */
  record ToEarliest() implements ReplayTarget {
    @Override
    public String describe() {
      return "--to-earliest";
    }
  }

  /** The end of each partition's log: the group skips everything not yet read. */
  record ToLatest() implements ReplayTarget {
    @Override
    public String describe() {
      return "--to-latest";
    }
  }

  /**
   * On each partition of one topic, the offset a plan file gives it ({@link OffsetsCsv}, the format
   * of {@code kafka-consumer-groups --reset-offsets --export}); only those partitions move.
   *
   * @param file the file's name as given, kept in the replay log
   * @param offsets the offsets of one topic, by partition
   */
  record FromFile(String file, SortedMap<Integer, Long> offsets) implements ReplayTarget {
    public FromFile {
      if (offsets == null || offsets.isEmpty()) {
        throw new ConfigurationException("A plan file must give at least one partition's offset");
      }
      offsets = Collections.unmodifiableSortedMap(new TreeMap<>(offsets));
    }

    @Override
    public String describe() {
      return "--from-file " + file;
    }
  }
}
