package dev.ordinal.ops.lag;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Keeps a sliding window of samples per group and partition and gives each a {@link LagStatus}.
 * Time is the snapshots' own {@link LagSnapshot#takenAt()}, so a test drives it with a fixed or
 * settable clock and no waiting.
 *
 * <p>The rules ({@link #classify}), first match wins, with {@code now} the newest sample's time,
 * {@code lag = logEnd - committed} of the newest sample, and the committed offset "frozen since"
 * the oldest sample of the unbroken run of samples that have the newest committed offset:
 *
 * <ol>
 *   <li>{@link LagStatus#REWOUND}: the committed offset went down between two consecutive samples,
 *       the later of which is within the window (a reset or a replay: worth seeing even when the
 *       lag is 0 again).
 *   <li>No committed offset: {@link LagStatus#OK} when the partition never had a record (log end
 *       0), else {@link LagStatus#UNKNOWN} (where the group starts depends on its {@code
 *       auto.offset.reset}).
 *   <li>{@code lag == 0}: {@link LagStatus#OK}, however long nothing moved. An idle topic with
 *       nothing to read is never stalled or stopped.
 *   <li>{@code lag < 0} or log end unknown: {@link LagStatus#UNKNOWN}.
 *   <li>{@code lag > 0} and frozen for the whole window or longer (since a sample at or before the
 *       window's start): {@link LagStatus#STOPPED}. Kafka does not say when an offset was last
 *       committed, so "no commits" means "the committed offset did not move" (a consumer that
 *       re-commits the same offset is as stopped as one that commits nothing), as observed by this
 *       tracker: it never says STOPPED before it has watched for a whole window.
 *   <li>{@code lag > 0} and frozen for at least {@link LagStatusConfig#stallAfter()}, but less than
 *       the window: {@link LagStatus#STALLED}.
 *   <li>Only one sample so far: {@link LagStatus#UNKNOWN} (nothing to compare).
 *   <li>Compared with the oldest sample kept (the last one at or before the window's start, else
 *       the first within it): smaller lag {@link LagStatus#CATCHING_UP}, larger lag {@link
 *       LagStatus#FALLING_BEHIND}, the same lag {@link LagStatus#OK} (it keeps pace).
 * </ol>
 *
 * <p>A group's status is the worst of its partitions' ({@link LagStatus#worst}). A partition that
 * disappears from a snapshot loses its history. Thread-safe.
 */
public final class LagStatusTracker {
  private final LagStatusConfig config;
  private final Map<PartitionKey, List<LagSample>> history = new HashMap<>();

  public LagStatusTracker(LagStatusConfig config) {
    this.config = Objects.requireNonNull(config, "config");
  }

  public LagStatusConfig config() {
    return config;
  }

  /**
   * Adds the snapshot's samples and judges every partition in it. A snapshot taken at the same
   * instant as the previous one replaces it; one taken earlier (the clock went back) starts the
   * history again.
   */
  public synchronized LagReport update(LagSnapshot snapshot) {
    Instant now = snapshot.takenAt();
    Map<PartitionKey, LagStatus> partitions = new HashMap<>();
    Map<String, LagStatus> groups = new HashMap<>();
    Set<PartitionKey> seen = new HashSet<>();
    for (GroupLag g : snapshot.groups()) {
      List<LagStatus> statuses = new ArrayList<>();
      for (PartitionLag p : g.partitions()) {
        PartitionKey key = g.key(p);
        seen.add(key);
        List<LagSample> samples = history.computeIfAbsent(key, k -> new ArrayList<>());
        add(samples, LagSample.of(now, p));
        prune(samples, now.minus(config.window()));
        LagStatus status = classify(samples, now, config);
        partitions.put(key, status);
        statuses.add(status);
      }
      groups.put(g.group(), LagStatus.worst(statuses));
    }
    history.keySet().retainAll(seen);
    return new LagReport(snapshot, config, partitions, groups, List.of());
  }

  private static void add(List<LagSample> samples, LagSample sample) {
    if (!samples.isEmpty()) {
      Instant last = samples.get(samples.size() - 1).at();
      if (sample.at().isBefore(last)) {
        samples.clear();
      } else if (sample.at().equals(last)) {
        samples.remove(samples.size() - 1);
      }
    }
    samples.add(sample);
  }

  /** Keeps the samples after {@code cutoff} and the newest one at or before it. */
  private static void prune(List<LagSample> samples, Instant cutoff) {
    while (samples.size() >= 2 && !samples.get(1).at().isAfter(cutoff)) {
      samples.remove(0);
    }
  }

  /**
   * The status of one partition from its samples, oldest first, the newest taken at {@code now}.
   * Pure: the rules are in the type's documentation.
   *
   * @param samples the history kept for the partition: the samples within the window, and the
   *     newest one at or before its start when there is one; not empty
   */
  public static LagStatus classify(List<LagSample> samples, Instant now, LagStatusConfig config) {
    if (samples.isEmpty()) {
      return LagStatus.UNKNOWN;
    }
    Instant cutoff = now.minus(config.window());
    LagSample latest = samples.get(samples.size() - 1);
    for (int i = 1; i < samples.size(); i++) {
      LagSample before = samples.get(i - 1);
      LagSample after = samples.get(i);
      if (after.at().isAfter(cutoff)
          && before.committedOffset() != null
          && after.committedOffset() != null
          && after.committedOffset() < before.committedOffset()) {
        return LagStatus.REWOUND;
      }
    }
    if (latest.committedOffset() == null) {
      return Long.valueOf(0).equals(latest.logEndOffset()) ? LagStatus.OK : LagStatus.UNKNOWN;
    }
    Long lag = latest.lag();
    if (lag != null && lag == 0) {
      return LagStatus.OK;
    }
    if (lag == null || lag < 0) {
      return LagStatus.UNKNOWN;
    }
    Instant frozenSince = latest.at();
    for (int i = samples.size() - 2; i >= 0; i--) {
      if (!latest.committedOffset().equals(samples.get(i).committedOffset())) {
        break;
      }
      frozenSince = samples.get(i).at();
    }
    Duration frozen = Duration.between(frozenSince, now);
    if (frozen.compareTo(config.window()) >= 0) {
      return LagStatus.STOPPED;
    }
    if (frozen.compareTo(config.stallAfter()) >= 0) {
      return LagStatus.STALLED;
    }
    if (samples.size() < 2) {
      return LagStatus.UNKNOWN;
    }
    Long baseline = samples.get(0).lag();
    if (baseline == null) {
      return LagStatus.UNKNOWN;
    }
    if (lag < baseline) {
      return LagStatus.CATCHING_UP;
    }
    return lag > baseline ? LagStatus.FALLING_BEHIND : LagStatus.OK;
  }
}
