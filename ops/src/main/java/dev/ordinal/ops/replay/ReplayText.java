package dev.ordinal.ops.replay;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/** How {@code ./ordinal replay} prints plans, replays and reports as text. */
public final class ReplayText implements ReplayOutput {
  private final PrintWriter out;
  private final String schema;

  /**
   * @param schema the schema of the replay log, named in what is printed
   */
  ReplayText(PrintWriter out, String schema) {
    this.out = Objects.requireNonNull(out, "out");
    this.schema = Objects.requireNonNull(schema, "schema");
  }

  @Override
  public void planned(List<ReplayPlan> plans, Path export, boolean executing) {
    plans.forEach(this::plan);
    if (export != null) {
      out.println("Plan written to " + export + " (kafka-consumer-groups' --from-file format).");
    }
    if (!executing) {
      out.println("Dry run: nothing changed. Add --execute to apply it.");
    }
    out.flush();
  }

  @Override
  public void progress(String line) {
    out.println("  " + line);
    out.flush();
  }

  @Override
  public void executed(List<ExecutedReplay> replays) {
    for (ExecutedReplay done : replays) {
      out.printf(
          "Executed: replay %d, recorded in %s.replay_log by %s at %s.%n",
          done.id(), schema, done.executedBy(), done.executedAt());
      out.printf(
          "Once the group's consumers have caught up: ./ordinal replay --report --id %d%s%n",
          done.id(), "billing".equals(schema) ? "" : " --schema " + schema);
    }
    out.flush();
  }

  @Override
  public void history(List<ExecutedReplay> replays, String none) {
    if (replays.isEmpty()) {
      out.println(none);
    }
    for (ExecutedReplay r : replays) {
      out.printf(
          "replay %d  %s  by %s: group %s, topic %s, %s%s%n",
          r.id(),
          r.executedAt(),
          r.executedBy(),
          r.group(),
          r.topic(),
          r.target(),
          r.consumer().map(c -> ", consumer " + c).orElse(""));
      out.println(
          "  "
              + r.moves().stream()
                  .map(m -> "partition " + m.partition() + ": " + m.from() + " -> " + m.to())
                  .collect(Collectors.joining(", ")));
      out.printf("  %d record(s) delivered again%n", r.redelivered());
    }
    out.flush();
  }

  /** The dry run's table: per partition current, new, earliest, latest and redeliver. */
  private void plan(ReplayPlan plan) {
    out.printf(
        "Replay of consumer group %s on topic %s, %s:%n",
        plan.group(), plan.topic(), plan.request().describe());
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
  @Override
  public void report(ReplayReport report) {
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
