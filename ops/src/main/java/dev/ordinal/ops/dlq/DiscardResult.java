package dev.ordinal.ops.dlq;

import java.util.List;

/**
 * What a discard did, or would do in a dry run.
 *
 * @param executed false for a dry run: nothing was recorded
 * @param discarded the dead letters marked as handled without a re-drive
 * @param alreadyDiscarded how many the filter matched that had been discarded before
 */
public record DiscardResult(boolean executed, List<DeadLetter> discarded, int alreadyDiscarded) {
  public DiscardResult {
    discarded = List.copyOf(discarded);
  }
}
