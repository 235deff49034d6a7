package dev.ordinal.ops.lag;

import dev.ordinal.messaging.ConfigurationException;
import java.time.Instant;

/**
 * The offsets of one group on one partition at one moment, as the status rules see them.
 *
 * @param at when it was read
 * @param committedOffset null when the group has committed nothing on the partition
 * @param logEndOffset null when unknown (no leader)
 */
public record LagSample(Instant at, Long committedOffset, Long logEndOffset) {
  public LagSample {
    if (at == null) {
      throw new ConfigurationException("at must be set");
    }
  }

  public static LagSample of(Instant at, PartitionLag p) {
    return new LagSample(at, p.committedOffset(), p.logEndOffset());
  }

  /** {@code logEndOffset - committedOffset}; null when either is unknown. */
  public Long lag() {
    return committedOffset == null || logEndOffset == null ? null : logEndOffset - committedOffset;
  }
}
