package dev.ordinal.ops.dlq;

import java.util.List;
import java.util.Map;

/**
 * What a re-drive did, or would do in a dry run: the dead letters produced back to their source
 * topic, those refused by the loop guard, and those left where they are, with why.
 *
 * @param executed false for a dry run: nothing was produced or recorded
 * @param maxRedrives the loop guard's limit
 */
public record RedriveResult(
    boolean executed,
    int maxRedrives,
    List<Redriven> redriven,
    List<Refused> refused,
    List<Skipped> skipped) {

  public RedriveResult {
    redriven = List.copyOf(redriven);
    refused = List.copyOf(refused);
    skipped = List.copyOf(skipped);
  }

  /**
   * A dead letter produced again (or to be, in a dry run), with its original message id.
   *
   * @param topic where it went (its original topic)
   * @param partition the partition it went to; in a dry run the one it would go to, -1 when the
   *     producer would choose
   * @param offset its offset there; -1 in a dry run
   * @param earlierRedrives how many times the message had been re-driven before this one: its
   *     {@value DeadLetter#REDRIVE_COUNT} header plus the re-drives of this dead letter in the log
   */
  public record Redriven(
      DeadLetter source, String topic, int partition, long offset, int earlierRedrives) {
    /** The {@value DeadLetter#REDRIVE_COUNT} the re-driven record carries. */
    public int count() {
      return earlierRedrives + 1;
    }
  }

  /** A dead letter the loop guard did not re-drive: re-driven {@code redrives} times already. */
  public record Refused(DeadLetter source, int redrives, String reason) {}

  /** A dead letter that was not re-driven. */
  public record Skipped(DeadLetter source, String reason) {}

  /** How many were (or would be) re-driven to each topic. */
  public Map<String, Long> byTopic() {
    return DeadLetterList.countBy(redriven.stream().map(Redriven::topic).toList());
  }

  /** How many were (or would be) re-driven per error. */
  public Map<String, Long> byError() {
    return DeadLetterList.countBy(
        redriven.stream().map(r -> r.source().error().orElse("-")).toList());
  }
}
