package dev.ordinal.ops.lag;

import dev.ordinal.messaging.slot.SlotMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * Publishes {@link LagReport}s as gauges. Bind it to a registry, then call {@link #update} with
 * each report ({@link LagSampler} does both); gauges appear for new groups, partitions and slots,
 * and are removed when they leave the reports.
 *
 * <p>Per group, topic and partition (tags {@code group}, {@code topic}, {@code partition}): {@code
 * ordinal.consumer.lag.records}, {@code ordinal.consumer.lag.seconds} (age of the next record; NaN
 * when unknown), {@code ordinal.consumer.offset.committed}, {@code ordinal.consumer.offset.end}
 * (NaN when unknown), and {@code ordinal.consumer.lag.status} with a {@code status} tag per {@link
 * LagStatus}: 1 for the current status, 0 for the others.
 *
 * <p>Per group (tag {@code group}): {@code ordinal.consumer.group.lag.records} (sum), {@code
 * ordinal.consumer.group.lag.seconds} (the oldest next record), {@code
 * ordinal.consumer.group.members}, {@code ordinal.consumer.group.lag.status} (as above).
 *
 * <p>Per logical replication slot, the relay's own {@link SlotMeters} ({@code
 * ordinal_slot_wal_bytes{slot,position}} from {@code restart_lsn} and {@code confirmed_flush_lsn},
 * {@code ordinal_slot_safe_wal_bytes}, {@code ordinal_slot_wal_status}, {@code
 * ordinal_slot_active}). And {@code ordinal.consumer.lag.sample.failures}: reads that failed (the
 * gauges then keep the last figures).
 */
public final class LagMetrics implements MeterBinder {
  private MeterRegistry registry;
  private Counter failures;
  private final Map<PartitionKey, Series<PartitionLag>> partitions = new HashMap<>();
  private final Map<String, Series<GroupLag>> groups = new HashMap<>();
  private SlotMeters slots;

  /**
   * What a set of gauges with the same tags reads: the latest value and status, replaced on each
   * update.
   */
  private final class Series<T> {
    volatile T value;
    volatile LagStatus status = LagStatus.UNKNOWN;
    final List<Meter> meters = new ArrayList<>();
    private final Tags tags;

    Series(Tags tags) {
      this.tags = tags;
    }

    /** Adds gauge {@code name} reading {@code read} of the latest value; NaN before the first. */
    Series<T> gauge(String name, String description, ToDoubleFunction<T> read) {
      meters.add(
          Gauge.builder(
                  name,
                  this,
                  series -> series.value == null ? Double.NaN : read.applyAsDouble(series.value))
              .description(description)
              .tags(tags)
              .strongReference(true)
              .register(registry));
      return this;
    }

    /** Adds gauge {@code name} tagged with each status: 1 for the current one, 0 for the others. */
    Series<T> statusGauges(String name) {
      for (LagStatus s : LagStatus.values()) {
        meters.add(
            Gauge.builder(name, this, series -> series.status == s ? 1 : 0)
                .description("1 for the current lag status, 0 for the others")
                .tags(tags.and("status", s.name()))
                .strongReference(true)
                .register(registry));
      }
      return this;
    }
  }

  @Override
  public synchronized void bindTo(MeterRegistry meterRegistry) {
    this.registry = meterRegistry;
    this.slots = new SlotMeters(meterRegistry, Tags.empty());
    this.failures =
        Counter.builder("ordinal.consumer.lag.sample.failures")
            .description("Consumer lag reads that failed")
            .register(meterRegistry);
  }

  /** A read failed: counted; the gauges keep the last figures. */
  public synchronized void failed() {
    if (failures != null) {
      failures.increment();
    }
  }

  /** Sets every gauge from {@code report}; does nothing before {@link #bindTo}. */
  public synchronized void update(LagReport report) {
    if (registry == null) {
      return;
    }
    Set<PartitionKey> seenPartitions = new HashSet<>();
    Set<String> seenGroups = new HashSet<>();
    for (GroupLag g : report.snapshot().groups()) {
      seenGroups.add(g.group());
      Series<GroupLag> gs = groups.computeIfAbsent(g.group(), this::groupSeries);
      gs.value = g;
      gs.status = report.status(g.group());
      for (PartitionLag p : g.partitions()) {
        PartitionKey key = g.key(p);
        seenPartitions.add(key);
        Series<PartitionLag> ps = partitions.computeIfAbsent(key, this::partitionSeries);
        ps.value = p;
        ps.status = report.status(key);
      }
    }
    slots.update(report.slots());
    removeAllBut(partitions, seenPartitions);
    removeAllBut(groups, seenGroups);
  }

  private Series<PartitionLag> partitionSeries(PartitionKey key) {
    Tags tags =
        Tags.of(
            "group",
            key.group(),
            "topic",
            key.topic(),
            "partition",
            String.valueOf(key.partition()));
    return new Series<PartitionLag>(tags)
        .gauge(
            "ordinal.consumer.lag.records", "Records the group has yet to read", p -> num(p.lag()))
        .gauge(
            "ordinal.consumer.lag.seconds",
            "Age of the next record the group will read",
            p -> p.timeLag() == null ? Double.NaN : p.timeLag().toMillis() / 1000.0)
        .gauge(
            "ordinal.consumer.offset.committed",
            "The group's committed offset",
            p -> num(p.committedOffset()))
        .gauge(
            "ordinal.consumer.offset.end",
            "The partition's log-end offset",
            p -> num(p.logEndOffset()))
        .statusGauges("ordinal.consumer.lag.status");
  }

  private Series<GroupLag> groupSeries(String group) {
    return new Series<GroupLag>(Tags.of("group", group))
        .gauge(
            "ordinal.consumer.group.lag.records",
            "Records the group has yet to read, all partitions",
            GroupLag::totalLag)
        .gauge(
            "ordinal.consumer.group.lag.seconds",
            "Age of the oldest next record over the group's partitions",
            g -> g.maxTimeLag().map(d -> d.toMillis() / 1000.0).orElse(Double.NaN))
        .gauge("ordinal.consumer.group.members", "Members of the group", g -> g.members().size())
        .statusGauges("ordinal.consumer.group.lag.status");
  }

  private <K> void removeAllBut(Map<K, ? extends Series<?>> series, Set<K> keep) {
    series
        .entrySet()
        .removeIf(
            e -> {
              if (keep.contains(e.getKey())) {
                return false;
              }
              e.getValue().meters.forEach(registry::remove);
              return true;
            });
  }

  private static double num(Long value) {
    return value == null ? Double.NaN : value;
  }
}
