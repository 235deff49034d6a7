package dev.ordinal.ops.replay;

import java.io.PrintWriter;
import java.util.stream.Collectors;

/** How {@code ./ordinal replay} prints plans and reports as text. */
public final class ReplayText {
  private ReplayText() {}

  /** The dry run's table: per partition current, new, earliest, latest and redeliver. */
  public static void plan(PrintWriter out, ReplayPlan plan) {
    out.printf(
        "Replay of consumer group %s on topic %s, %s:%n",
        plan.group(), plan.topic(), plan.request().target().describe());
    out.printf(
        "  %9s %12s %12s %12s %12s %12s%n",
        "partition", "current", "new", "earliest", "latest", "redeliver");
    for (PartitionPlan p : plan.partitions()) {
      out.printf(
          "  %9d %12d %12d %12d %12d %12d%n",
          p.partition(), p.current(), p.target(), p.earliest(), p.latest(), p.redeliver());
    }
    out.printf("  %d record(s) will be delivered again.%n", plan.redeliver());
    if (plan.skip() > 0) {
      out.printf(
          "  WARNING: %d record(s) not yet read will be skipped: this group will never apply"
              + " them.%n",
          plan.skip());
    }
  }

  /** A report's table, its totals and whether they are final. */
  public static void report(PrintWriter out, ReplayReport report) {
    ExecutedReplay r = report.replay();
    out.printf(
        "Replay %d of group %s on topic %s (%s), by %s at %s; inbox consumer %s%n",
        r.id(),
        r.group(),
        r.topic(),
        r.target(),
        r.executedBy(),
        r.executedAt(),
        report.consumer());
    out.printf(
        "  %9s %12s %12s %12s %12s %12s %12s%n",
        "partition", "from", "to", "committed", "redelivered", "duplicates", "new effects");
    for (ReplayReport.PartitionReport p : report.partitions()) {
      out.printf(
          "  %9d %12d %12d %12s %12d %12d %12d%n",
          p.partition(),
          p.from(),
          p.to(),
          p.committed() < 0 ? "none" : Long.toString(p.committed()),
          p.redelivered(),
          p.duplicates(),
          p.newEffects());
    }
    out.printf(
        "  redelivered %d, duplicates %d, new effects %d%n",
        report.redelivered(), report.duplicates(), report.newEffects());
    if (report.caughtUp()) {
      out.println("  The group has read past every replayed record: these counts are final.");
    } else {
      out.printf(
          "  NOT CAUGHT UP: the group has read %d of the %d redelivered records (%s); until it"
              + " has, unread records count as duplicates.%n",
          report.read(),
          report.redelivered(),
          report.partitions().stream()
              .filter(p -> !p.caughtUp())
              .map(
                  p ->
                      "partition "
                          + p.partition()
                          + " at "
                          + (p.committed() < 0 ? "none" : p.committed())
                          + " of "
                          + p.from())
              .collect(Collectors.joining(", ")));
    }
    out.flush();
  }
}
