package dev.ordinal.ops.lag;

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
 * <p>Per logical replication slot (tag {@code slot}): {@code ordinal.replication.slot.lag.bytes},
 * {@code ordinal.replication.slot.active}. And {@code ordinal.consumer.lag.sample.failures}: reads
 * that failed (the gauges then keep the last figures).
 */
public final class LagMetrics implements MeterBinder {
  private MeterRegistry registry;
  private Counter failures;
  private final Map<PartitionKey, Series<PartitionLag>> partitions = new HashMap<>();
  private final Map<String, Series<GroupLag>> groups = new HashMap<>();
  private final Map<String, Series<SlotLag>> slots = new HashMap<>();

  /** What a set of gauges reads: the latest value and status, replaced on each update. */
  private static final class Series<T> {
    volatile T value;
    volatile LagStatus status = LagStatus.UNKNOWN;
    final List<Meter> meters = new ArrayList<>();
  }

  @Override
  public synchronized void bindTo(MeterRegistry meterRegistry) {
    this.registry = meterRegistry;
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
    Set<String> seenSlots = new HashSet<>();
    for (SlotLag s : report.slots()) {
      seenSlots.add(s.slot());
      slots.computeIfAbsent(s.slot(), this::slotSeries).value = s;
    }
    removeAllBut(partitions, seenPartitions);
    removeAllBut(groups, seenGroups);
    removeAllBut(slots, seenSlots);
  }

  private Series<PartitionLag> partitionSeries(PartitionKey key) {
    Series<PartitionLag> s = new Series<>();
    Tags tags =
        Tags.of(
            "group",
            key.group(),
            "topic",
            key.topic(),
            "partition",
            String.valueOf(key.partition()));
    gauge(
        s,
        "ordinal.consumer.lag.records",
        "Records the group has yet to read",
        tags,
        p -> num(p.lag()));
    gauge(
        s,
        "ordinal.consumer.lag.seconds",
        "Age of the next record the group will read",
        tags,
        p -> p.timeLag() == null ? Double.NaN : p.timeLag().toMillis() / 1000.0);
    gauge(
        s,
        "ordinal.consumer.offset.committed",
        "The group's committed offset",
        tags,
        p -> num(p.committedOffset()));
    gauge(
        s,
        "ordinal.consumer.offset.end",
        "The partition's log-end offset",
        tags,
        p -> num(p.logEndOffset()));
    statusGauges(s, "ordinal.consumer.lag.status", tags);
    return s;
  }

  private Series<GroupLag> groupSeries(String group) {
    Series<GroupLag> s = new Series<>();
    Tags tags = Tags.of("group", group);
    gauge(
        s,
        "ordinal.consumer.group.lag.records",
        "Records the group has yet to read, all partitions",
        tags,
        GroupLag::totalLag);
    gauge(
        s,
        "ordinal.consumer.group.lag.seconds",
        "Age of the oldest next record over the group's partitions",
        tags,
        g -> g.maxTimeLag().map(d -> d.toMillis() / 1000.0).orElse(Double.NaN));
    gauge(
        s, "ordinal.consumer.group.members", "Members of the group", tags, g -> g.members().size());
    statusGauges(s, "ordinal.consumer.group.lag.status", tags);
    return s;
  }

  private Series<SlotLag> slotSeries(String slot) {
    Series<SlotLag> s = new Series<>();
    Tags tags = Tags.of("slot", slot);
    gauge(
        s,
        "ordinal.replication.slot.lag.bytes",
        "WAL the replication slot holds back",
        tags,
        l -> num(l.lagBytes()));
    gauge(
        s,
        "ordinal.replication.slot.active",
        "1 while a client streams from the slot",
        tags,
        l -> l.active() ? 1 : 0);
    return s;
  }

  private <T> void gauge(
      Series<T> s, String name, String description, Tags tags, ToDoubleFunction<T> read) {
    s.meters.add(
        Gauge.builder(
                name,
                s,
                series -> series.value == null ? Double.NaN : read.applyAsDouble(series.value))
            .description(description)
            .tags(tags)
            .strongReference(true)
            .register(registry));
  }

  private <T> void statusGauges(Series<T> s, String name, Tags tags) {
    for (LagStatus status : LagStatus.values()) {
      s.meters.add(
          Gauge.builder(name, s, series -> series.status == status ? 1 : 0)
              .description("1 for the current lag status, 0 for the others")
              .tags(tags.and("status", status.name()))
              .strongReference(true)
              .register(registry));
    }
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
