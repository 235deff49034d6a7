package dev.ordinal.ops.replay;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * {@code ./ordinal replay --json}: one JSON document on standard output, on one line, per run;
 * progress lines go to standard error. Field names are stable (docs/DESIGN.md lists them):
 *
 * <ul>
 *   <li>dry run: {@code {"execute": false, "export": file or null, "plans": [plan]}}; with {@code
 *       --execute}, {@code "execute": true} and {@code "replays": [replay]} as recorded;
 *   <li>plan: {@code group} (moved), {@code sourceGroup} (whose offsets it starts from), {@code
 *       topic}, {@code target}, {@code plannedAt}, {@code redeliver}, {@code skip}, {@code
 *       partitions}: {@code partition}, {@code current}, {@code new}, {@code earliest}, {@code
 *       latest}, {@code redeliver}, {@code skip};
 *   <li>replay: {@code id}, {@code group}, {@code topic}, {@code target}, {@code executedBy},
 *       {@code executedAt}, {@code consumer} (or null), {@code redelivered}, {@code moves}: {@code
 *       partition}, {@code from}, {@code to}, {@code redelivered};
 *   <li>{@code --history}: {@code {"replays": [replay]}}, newest first;
 *   <li>{@code --report}: {@code replay}, {@code consumer}, {@code redelivered}, {@code
 *       duplicates}, {@code newEffects}, {@code read}, {@code caughtUp}, {@code partitions}: {@code
 *       partition}, {@code from}, {@code to}, {@code committed} (null when none), {@code
 *       redelivered}, {@code duplicates}, {@code newEffects}, {@code caughtUp}.
 * </ul>
 *
 * Instants are ISO-8601 strings, offsets and counts JSON numbers.
 */
public final class ReplayJson implements ReplayOutput {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final PrintWriter out;
  private final PrintWriter err;
  private ObjectNode pending;

  ReplayJson(PrintWriter out, PrintWriter err) {
    this.out = Objects.requireNonNull(out, "out");
    this.err = Objects.requireNonNull(err, "err");
  }

  @Override
  public void planned(List<ReplayPlan> plans, Path export, boolean executing) {
    ObjectNode root = JSON.createObjectNode();
    root.put("execute", executing);
    root.put("export", export == null ? null : export.toString());
    ArrayNode array = root.putArray("plans");
    plans.forEach(p -> plan(array.addObject(), p));
    if (executing) {
      pending = root;
    } else {
      print(root);
    }
  }

  @Override
  public void progress(String line) {
    err.println(line);
    err.flush();
  }

  @Override
  public void executed(List<ExecutedReplay> replays) {
    ObjectNode root = pending == null ? JSON.createObjectNode() : pending;
    ArrayNode array = root.putArray("replays");
    replays.forEach(r -> replay(array.addObject(), r));
    print(root);
  }

  @Override
  public void history(List<ExecutedReplay> replays, String none) {
    ObjectNode root = JSON.createObjectNode();
    ArrayNode array = root.putArray("replays");
    replays.forEach(r -> replay(array.addObject(), r));
    print(root);
  }

  @Override
  public void report(ReplayReport report) {
    ObjectNode root = JSON.createObjectNode();
    replay(root.putObject("replay"), report.replay());
    root.put("consumer", report.consumer());
    root.put("redelivered", report.redelivered());
    root.put("duplicates", report.duplicates());
    root.put("newEffects", report.newEffects());
    root.put("read", report.read());
    root.put("caughtUp", report.caughtUp());
    ArrayNode partitions = root.putArray("partitions");
    for (ReplayReport.PartitionReport p : report.partitions()) {
      ObjectNode n = partitions.addObject();
      n.put("partition", p.partition());
      n.put("from", p.from());
      n.put("to", p.to());
      n.put("committed", p.committed() < 0 ? null : p.committed());
      n.put("redelivered", p.redelivered());
      n.put("duplicates", p.duplicates());
      n.put("newEffects", p.newEffects());
      n.put("caughtUp", p.caughtUp());
    }
    print(root);
  }

  private static void plan(ObjectNode n, ReplayPlan plan) {
    n.put("group", plan.group());
    n.put("sourceGroup", plan.request().source());
    n.put("topic", plan.topic());
    n.put("target", plan.request().describe());
    n.put("plannedAt", plan.plannedAt().toString());
    n.put("redeliver", plan.redeliver());
    n.put("skip", plan.skip());
    ArrayNode partitions = n.putArray("partitions");
    for (PartitionPlan p : plan.partitions()) {
      ObjectNode pn = partitions.addObject();
      pn.put("partition", p.partition());
      pn.put("current", p.current());
      pn.put("new", p.target());
      pn.put("earliest", p.earliest());
      pn.put("latest", p.latest());
      pn.put("redeliver", p.redeliver());
      pn.put("skip", p.skip());
    }
  }

  private static void replay(ObjectNode n, ExecutedReplay r) {
    n.put("id", r.id());
    n.put("group", r.group());
    n.put("topic", r.topic());
    n.put("target", r.target());
    n.put("executedBy", r.executedBy());
    n.put("executedAt", r.executedAt().toString());
    n.put("consumer", r.consumer().orElse(null));
    n.put("redelivered", r.redelivered());
    ArrayNode moves = n.putArray("moves");
    for (ExecutedReplay.Move m : r.moves()) {
      ObjectNode mn = moves.addObject();
      mn.put("partition", m.partition());
      mn.put("from", m.from());
      mn.put("to", m.to());
      mn.put("redelivered", m.redelivered());
    }
  }

  private void print(ObjectNode root) {
    out.println(root.toString());
    out.flush();
  }
}
