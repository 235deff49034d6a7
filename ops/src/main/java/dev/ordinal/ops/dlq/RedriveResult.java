package dev.ordinal.ops.dlq;

import java.util.List;

/**
 * What a re-drive did: the dead letters produced back to their source topic, and those left where
 * they are, with why.
 */
public record RedriveResult(List<Redriven> redriven, List<Skipped> skipped) {

  public RedriveResult {
    redriven = List.copyOf(redriven);
    skipped = List.copyOf(skipped);
  }

  /**
   * A dead letter produced again, with its original message id.
   *
   * @param topic where it went (its original topic)
   * @param partition the partition it went to
   * @param offset its offset there
   * @param earlierRedrives how many times it had been re-driven before this one
   */
  public record Redriven(
      DeadLetter source, String topic, int partition, long offset, int earlierRedrives) {}

  /** A dead letter that was not re-driven. */
  public record Skipped(DeadLetter source, String reason) {}
}
