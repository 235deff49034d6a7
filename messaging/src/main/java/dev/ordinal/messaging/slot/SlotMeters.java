package dev.ordinal.messaging.slot;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The gauges of {@link SlotReading}s, one family for the relay and {@code ./ordinal lag --watch}:
 *
 * <ul>
 *   <li>{@code ordinal_slot_wal_bytes{slot, position}}: WAL held back from {@code restart_lsn}
 *       ({@code position="restart"}, what the server keeps: the disk figure) and from {@code
 *       confirmed_flush_lsn} ({@code position="confirmed"}); NaN when the slot has no such position
 *   <li>{@code ordinal_slot_safe_wal_bytes{slot}}: {@code safe_wal_size}, NaN when unbounded
 *       ({@code max_slot_wal_keep_size = -1}) or lost
 *   <li>{@code ordinal_slot_wal_status{slot, status}}: 1 for the slot's {@code wal_status}, 0 for
 *       the other values
 *   <li>{@code ordinal_slot_active{slot}}: 1 while a client streams from the slot
 * </ul>
 *
 * Gauges appear with a slot's first reading and are removed when it is no longer read.
 */
public final class SlotMeters implements AutoCloseable {
  private final MeterRegistry registry;
  private final Tags tags;
  private final Map<String, Series> slots = new HashMap<>();

  /**
   * @param tags added to every gauge (none: {@link Tags#empty()})
   */
  public SlotMeters(MeterRegistry registry, Tags tags) {
    this.registry = registry;
    this.tags = tags;
  }

  private final class Series {
    volatile SlotReading value;
    final List<Meter> meters = new ArrayList<>();

    Series(String slot) {
      Tags t = tags.and("slot", slot);
      gauge(
          "ordinal.slot.wal.bytes",
          t.and("position", "restart"),
          "WAL the server keeps for the" + " slot: current WAL position minus restart_lsn",
          SlotReading::restartLagBytes);
      gauge(
          "ordinal.slot.wal.bytes",
          t.and("position", "confirmed"),
          "WAL the slot's client has"
              + " not confirmed: current WAL position minus confirmed_flush_lsn",
          SlotReading::confirmedLagBytes);
      gauge(
          "ordinal.slot.safe.wal.bytes",
          t,
          "WAL that may still be written before the slot is"
              + " in danger of being lost (safe_wal_size; NaN when unbounded)",
          SlotReading::safeWalBytes);
      gauge(
          "ordinal.slot.active",
          t,
          "1 while a client streams from the slot",
          s -> s.active() ? 1L : 0L);
      for (String status : SlotReading.WAL_STATUSES) {
        gauge(
            "ordinal.slot.wal.status",
            t.and("status", status),
            "1 for the slot's wal_status, 0 for the others",
            s -> status.equals(s.walStatus()) ? 1L : 0L);
      }
    }

    private void gauge(
        String name, Tags t, String description, java.util.function.Function<SlotReading, Long> f) {
      ToDoubleFunction<Series> read =
          series -> {
            SlotReading r = series.value;
            Long v = r == null ? null : f.apply(r);
            return v == null ? Double.NaN : v;
          };
      meters.add(
          Gauge.builder(name, this, read)
              .description(description)
              .tags(t)
              .strongReference(true)
              .register(registry));
    }
  }

  /** Sets the gauges from {@code readings}; those of slots not among them are removed. */
  public synchronized void update(Collection<SlotReading> readings) {
    Map<String, SlotReading> now = new HashMap<>();
    readings.forEach(r -> now.put(r.slot(), r));
    slots
        .entrySet()
        .removeIf(
            e -> {
              if (now.containsKey(e.getKey())) {
                return false;
              }
              e.getValue().meters.forEach(registry::remove);
              return true;
            });
    now.forEach((slot, r) -> slots.computeIfAbsent(slot, Series::new).value = r);
  }

  /** Removes every gauge. */
  @Override
  public synchronized void close() {
    update(List.of());
  }
}
