package dev.ordinal.ops.replay;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;

/**
 * How {@code ./ordinal replay} shows what it does: as text ({@link ReplayText}) or as one JSON
 * document on standard output ({@link ReplayJson}). A dry run calls {@link #planned}; {@code
 * --execute} calls it, then {@link #progress} once per partition moved, then {@link #executed}.
 */
public sealed interface ReplayOutput permits ReplayText, ReplayJson {

  /**
   * @param out standard output
   * @param err standard error, where the JSON form sends its progress lines
   * @param schema the schema of the replay log, named in the text
   */
  static ReplayOutput of(boolean json, PrintWriter out, PrintWriter err, String schema) {
    return json ? new ReplayJson(out, err) : new ReplayText(out, schema);
  }

  /**
   * The plans, before anything moves.
   *
   * @param export the plan file they were written to, or null
   * @param executing whether {@link #executed} follows
   */
  void planned(List<ReplayPlan> plans, Path export, boolean executing);

  /** One line as a partition is moved (to standard error in the JSON form). */
  void progress(String line);

  /** The replays as recorded, once every plan is executed. */
  void executed(List<ExecutedReplay> replays);

  /**
   * {@code --history}: the replays, newest first.
   *
   * @param none what to say when there are none
   */
  void history(List<ExecutedReplay> replays, String none);

  /** {@code --report}: one replay's report. */
  void report(ReplayReport report);
}
