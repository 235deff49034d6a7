package dev.ordinal.ops.replay;

import dev.ordinal.messaging.RefusedException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A replay plan as a CSV file, in the format {@code kafka-consumer-groups --reset-offsets --export}
 * writes and {@code --from-file} reads (Kafka's {@code CsvUtils}): no header, one line per
 * partition, {@code topic,partition,offset} for one group, or {@code group,topic,partition,offset}.
 * Topic names cannot hold a comma or a quote, so no field is ever quoted.
 */
public final class OffsetsCsv {
  private OffsetsCsv() {}

  /** The plans' target offsets, one {@code topic,partition,offset} line per partition. */
  public static String write(List<ReplayPlan> plans) {
    StringBuilder csv = new StringBuilder();
    for (ReplayPlan plan : plans) {
      for (PartitionPlan p : plan.partitions()) {
        csv.append(plan.topic()).append(',').append(p.partition()).append(',');
        csv.append(p.target()).append('\n');
      }
    }
    return csv.toString();
  }

  /**
   * The offsets {@code file} gives {@code group}, by topic and partition. Lines of four fields must
   * name {@code group}; blank lines are ignored.
   *
   * @throws RefusedException naming the file and line of the first thing wrong in it
   */
  public static Map<String, SortedMap<Integer, Long>> read(Path file, String group) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new RefusedException("Cannot read the plan file " + file + " (" + e + ").", e);
    }
    Map<String, SortedMap<Integer, Long>> offsets = new TreeMap<>();
    for (int n = 1; n <= lines.size(); n++) {
      String line = lines.get(n - 1).strip();
      if (line.isEmpty()) {
        continue;
      }
      String[] f = line.split(",", -1);
      String where = "Line " + n + " of " + file + " ('" + line + "') ";
      if (f.length != 3 && f.length != 4) {
        throw new RefusedException(
            where + "is not topic,partition,offset or group,topic,partition,offset.");
      }
      if (f.length == 4 && !f[0].equals(group)) {
        throw new RefusedException(where + "is for group " + f[0] + ", not " + group + ".");
      }
      int i = f.length - 3;
      long partition = number(f[i + 1], where);
      long offset = number(f[i + 2], where);
      if (f[i].isEmpty() || partition > Integer.MAX_VALUE) {
        throw new RefusedException(where + "names no topic or no valid partition.");
      }
      Long before =
          offsets.computeIfAbsent(f[i], t -> new TreeMap<>()).put((int) partition, offset);
      if (before != null) {
        throw new RefusedException(where + "gives " + f[i] + " partition " + partition + " again.");
      }
    }
    if (offsets.isEmpty()) {
      throw new RefusedException("The plan file " + file + " gives no offset.");
    }
    return offsets;
  }

  private static long number(String field, String where) {
    try {
      long value = Long.parseLong(field.strip());
      if (value >= 0) {
        return value;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new RefusedException(where + "has '" + field + "' where a number, 0 or more, belongs.");
  }
}
