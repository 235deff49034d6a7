package dev.ordinal.ops.lag;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ordinal.messaging.slot.SlotReading;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * How a lag report reads ({@code ./ordinal lag} prints it): a table per group, or one JSON
 * document.
 */
public final class LagOutput {
  private static final ObjectMapper JSON = new ObjectMapper();

  private LagOutput() {}

  /** The report as text: a table per group, then the replication slots. */
  public static String text(LagReport report) {
    StringBuilder out = new StringBuilder();
    out.append("Consumer lag at ")
        .append(report.snapshot().takenAt().truncatedTo(ChronoUnit.MILLIS))
        .append("  (status window ")
        .append(report.window().window())
        .append(", stalled after ")
        .append(report.window().stallAfter())
        .append(")\n");
    if (report.snapshot().groups().isEmpty()) {
      out.append("\nNo consumer group has committed offsets or members here.\n");
    }
    for (GroupLag g : report.snapshot().groups()) {
      out.append('\n');
      out.append("GROUP ")
          .append(g.group())
          .append("  ")
          .append(g.state())
          .append(", ")
          .append(g.members().size())
          .append(g.members().size() == 1 ? " member" : " members")
          .append("  lag ")
          .append(g.totalLag())
          .append(" records, ")
          .append(g.maxTimeLag().map(LagOutput::duration).orElse("-"))
          .append("  status ")
          .append(report.status(g.group()))
          .append('\n');
      for (GroupMember m : g.members()) {
        out.append("  member ")
            .append(m.memberId())
            .append("  client ")
            .append(m.clientId())
            .append("  host ")
            .append(m.host())
            .append("  partitions ")
            .append(m.assignment().size())
            .append('\n');
      }
      if (g.partitions().isEmpty()) {
        out.append("  no partitions (nothing committed, nothing assigned)\n");
        continue;
      }
      List<String[]> rows = new ArrayList<>();
      rows.add(
          new String[] {
            "TOPIC", "PARTITION", "COMMITTED", "LOG-END", "LAG", "LAG-TIME", "STATUS", "CONSUMER"
          });
      for (PartitionLag p : g.partitions()) {
        rows.add(
            new String[] {
              p.topic(),
              Integer.toString(p.partition()),
              dash(p.committedOffset()),
              dash(p.logEndOffset()),
              dash(p.lag()),
              p.timeLag() == null ? "-" : duration(p.timeLag()),
              report.status(g.key(p)).name(),
              p.memberId() == null ? "-" : p.memberId() + " (" + p.host() + ")"
            });
      }
      table(out, rows, new boolean[] {false, true, true, true, true, true, false, false});
    }
    if (!report.slots().isEmpty()) {
      out.append('\n');
      List<String[]> rows = new ArrayList<>();
      rows.add(
          new String[] {
            "REPLICATION SLOT", "ACTIVE", "WAL KEPT", "UNCONFIRMED", "WAL STATUS", "CONFIRMED"
          });
      for (SlotReading s : report.slots()) {
        rows.add(
            new String[] {
              s.slot(),
              s.active() ? "yes" : "no",
              s.restartLagBytes() == null ? "-" : bytes(s.restartLagBytes()),
              s.confirmedLagBytes() == null ? "-" : bytes(s.confirmedLagBytes()),
              Objects.toString(s.walStatus(), "-"),
              Objects.toString(s.confirmedFlushLsn(), "-")
            });
      }
      table(out, rows, new boolean[] {false, false, true, true, false, false});
    }
    return out.toString();
  }

  private static void table(StringBuilder out, List<String[]> rows, boolean[] rightAligned) {
    int[] width = new int[rows.get(0).length];
    for (String[] r : rows) {
      for (int i = 0; i < r.length; i++) {
        width[i] = Math.max(width[i], r[i].length());
      }
    }
    for (String[] r : rows) {
      StringBuilder line = new StringBuilder("  ");
      for (int i = 0; i < r.length; i++) {
        boolean last = i == r.length - 1;
        String cell =
            rightAligned[i]
                ? " ".repeat(width[i] - r[i].length()) + r[i]
                : last ? r[i] : r[i] + " ".repeat(width[i] - r[i].length());
        line.append(cell).append(last ? "" : "  ");
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
  }

  private static String dash(Long value) {
    return value == null ? "-" : Long.toString(value);
  }

  /** 0s, 850ms, 12.3s, 4m05s, 2h03m, 3d04h. */
  static String duration(Duration d) {
    long ms = d.toMillis();
    if (ms == 0) {
      return "0s";
    }
    if (ms < 1000) {
      return ms + "ms";
    }
    if (ms < 60_000) {
      return String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
    }
    long s = d.toSeconds();
    if (s < 3600) {
      return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
    }
    if (s < 86_400) {
      return String.format(Locale.ROOT, "%dh%02dm", s / 3600, (s % 3600) / 60);
    }
    return String.format(Locale.ROOT, "%dd%02dh", s / 86_400, (s % 86_400) / 3600);
  }

  static String bytes(long n) {
    if (n < 1024) {
      return n + " B";
    }
    if (n < 1024 * 1024) {
      return String.format(Locale.ROOT, "%.1f KiB", n / 1024.0);
    }
    if (n < 1024L * 1024 * 1024) {
      return String.format(Locale.ROOT, "%.1f MiB", n / (1024.0 * 1024));
    }
    return String.format(Locale.ROOT, "%.1f GiB", n / (1024.0 * 1024 * 1024));
  }

  /** One JSON document, on one line. */
  /** The report as one JSON document; unknown figures are null. */
  public static String json(LagReport report) {
    ObjectNode root = JSON.createObjectNode();
    root.put("takenAt", report.snapshot().takenAt().truncatedTo(ChronoUnit.MILLIS).toString());
    root.put("window", report.window().window().toString());
    root.put("stallAfter", report.window().stallAfter().toString());
    ArrayNode groups = root.putArray("groups");
    for (GroupLag g : report.snapshot().groups()) {
      ObjectNode gn = groups.addObject();
      gn.put("group", g.group());
      gn.put("state", g.state());
      gn.put("status", report.status(g.group()).name());
      gn.put("totalLag", g.totalLag());
      putSeconds(gn, "maxLagSeconds", g.maxTimeLag().orElse(null));
      ArrayNode members = gn.putArray("members");
      for (GroupMember m : g.members()) {
        ObjectNode mn = members.addObject();
        mn.put("memberId", m.memberId());
        mn.put("clientId", m.clientId());
        mn.put("host", m.host());
        ArrayNode assignment = mn.putArray("assignment");
        m.assignment().forEach(tp -> assignment.add(tp.toString()));
      }
      ArrayNode partitions = gn.putArray("partitions");
      for (PartitionLag p : g.partitions()) {
        ObjectNode pn = partitions.addObject();
        pn.put("topic", p.topic());
        pn.put("partition", p.partition());
        pn.put("committedOffset", p.committedOffset());
        pn.put("logEndOffset", p.logEndOffset());
        pn.put("lag", p.lag());
        putSeconds(pn, "lagSeconds", p.timeLag());
        pn.put("nextRecordTimestamp", instant(p.nextRecordTimestamp()));
        pn.put("status", report.status(g.key(p)).name());
        pn.put("memberId", p.memberId());
        pn.put("clientId", p.clientId());
        pn.put("host", p.host());
      }
    }
    ArrayNode slots = root.putArray("slots");
    for (SlotReading s : report.slots()) {
      ObjectNode sn = slots.addObject();
      sn.put("slot", s.slot());
      sn.put("plugin", s.plugin());
      sn.put("active", s.active());
      sn.put("restartLagBytes", s.restartLagBytes());
      sn.put("confirmedLagBytes", s.confirmedLagBytes());
      sn.put("confirmedFlushLsn", s.confirmedFlushLsn());
      sn.put("walStatus", s.walStatus());
      sn.put("safeWalBytes", s.safeWalBytes());
    }
    return root.toString();
  }

  private static void putSeconds(ObjectNode node, String field, Duration d) {
    if (d == null) {
      node.putNull(field);
    } else {
      node.put(field, d.toMillis() / 1000.0);
    }
  }

  private static String instant(Instant i) {
    return i == null ? null : i.toString();
  }
}
