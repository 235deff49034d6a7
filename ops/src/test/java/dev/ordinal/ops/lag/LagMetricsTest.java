package dev.ordinal.ops.lag;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.slot.SlotReading;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LagMetricsTest {
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final LagMetrics metrics = new LagMetrics();
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  @Test
  void gaugesFollowTheReportsAndLeaveWithTheirPartitions() {
    metrics.bindTo(registry);
    PartitionLag p = PartitionLag.of("orders", 2, 10L, 25L).withNextRecord(T0.minusSeconds(90), T0);
    GroupLag g = new GroupLag("billing", "Stable", List.of(), List.of(p));
    PartitionKey key = g.key(p);
    metrics.update(
        new LagReport(
            new LagSnapshot(T0, List.of(g)),
            LagStatusConfig.defaults(),
            Map.of(key, LagStatus.STALLED),
            Map.of("billing", LagStatus.STALLED),
            List.of(
                new SlotReading(
                    "ordinal_outbox", "pgoutput", true, 8192L, 4096L, "0/1", "reserved", null))));

    assertThat(gauge("ordinal.consumer.lag.records", "partition", "2")).isEqualTo(15);
    assertThat(gauge("ordinal.consumer.lag.seconds", "partition", "2")).isEqualTo(90);
    assertThat(gauge("ordinal.consumer.offset.committed", "partition", "2")).isEqualTo(10);
    assertThat(gauge("ordinal.consumer.offset.end", "partition", "2")).isEqualTo(25);
    assertThat(registry.get("ordinal.consumer.lag.status").tag("status", "STALLED").gauge().value())
        .isEqualTo(1);
    assertThat(registry.get("ordinal.consumer.lag.status").tag("status", "OK").gauge().value())
        .isZero();
    assertThat(gauge("ordinal.consumer.group.lag.records", "group", "billing")).isEqualTo(15);
    assertThat(gauge("ordinal.consumer.group.lag.seconds", "group", "billing")).isEqualTo(90);
    assertThat(registry.get("ordinal.slot.wal.bytes").tag("position", "restart").gauge().value())
        .isEqualTo(8192);
    assertThat(registry.get("ordinal.slot.wal.bytes").tag("position", "confirmed").gauge().value())
        .isEqualTo(4096);
    assertThat(gauge("ordinal.slot.safe.wal.bytes", "slot", "ordinal_outbox")).isNaN();
    assertThat(registry.get("ordinal.slot.wal.status").tag("status", "reserved").gauge().value())
        .isEqualTo(1);
    assertThat(registry.get("ordinal.slot.wal.status").tag("status", "lost").gauge().value())
        .isZero();
    assertThat(gauge("ordinal.slot.active", "slot", "ordinal_outbox")).isEqualTo(1);

    metrics.update(
        new LagReport(
            new LagSnapshot(T0.plusSeconds(5), List.of()),
            LagStatusConfig.defaults(),
            Map.of(),
            Map.of(),
            List.of()));
    assertThat(registry.find("ordinal.consumer.lag.records").gauges()).isEmpty();
    assertThat(registry.find("ordinal.consumer.lag.status").gauges()).isEmpty();
    assertThat(registry.find("ordinal.slot.wal.bytes").gauges()).isEmpty();
    assertThat(registry.find("ordinal.slot.wal.status").gauges()).isEmpty();
  }

  private double gauge(String name, String tag, String value) {
    return registry.get(name).tag(tag, value).gauge().value();
  }
}
