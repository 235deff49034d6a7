package dev.ordinal.ops.lag;

import dev.ordinal.messaging.ConfigurationException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Every group a {@link LagReader} was asked about, at one moment.
 *
 * @param takenAt when the offsets were read, by the reader's clock; time lags are measured against
 *     it
 * @param groups by group id
 */
public record LagSnapshot(Instant takenAt, List<GroupLag> groups) {
  public LagSnapshot {
    if (takenAt == null) {
      throw new ConfigurationException("takenAt must be set");
    }
    groups = groups == null ? List.of() : List.copyOf(groups);
  }

  public Optional<GroupLag> group(String group) {
    return groups.stream().filter(g -> g.group().equals(group)).findFirst();
  }
}
