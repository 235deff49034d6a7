package dev.ordinal.relay.internal;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.lang.management.ManagementFactory;
import java.util.List;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * A few of the embedded Debezium engine's streaming metrics, which it publishes as JMX attributes
 * of {@code debezium.postgres:type=connector-metrics,context=streaming,server=<topic.prefix>} (the
 * relay sets {@code topic.prefix} to the slot name), as gauges: NaN while the engine does not run
 * (a standby, or between leads).
 *
 * <ul>
 *   <li>{@code ordinal_relay_debezium_milliseconds_behind_source}: {@code MilliSecondsBehindSource}
 *   <li>{@code ordinal_relay_debezium_events_seen}: {@code TotalNumberOfEventsSeen} since the
 *       engine started
 *   <li>{@code ordinal_relay_debezium_connected}: {@code Connected}, 1 or 0
 *   <li>{@code ordinal_relay_debezium_queue_remaining_capacity}: {@code QueueRemainingCapacity}
 * </ul>
 */
public final class EngineMeters {
  private EngineMeters() {}

  /** Registers the gauges; the caller removes them. */
  public static List<Gauge> register(MeterRegistry registry, String slot, Tags tags) {
    ObjectName name;
    try {
      name =
          new ObjectName(
              "debezium.postgres:type=connector-metrics,context=streaming,server=" + slot);
    } catch (JMException e) {
      return List.of(); // a slot name JMX cannot carry: no engine gauges
    }
    MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
    return List.of(
        gauge(registry, tags, jmx, name, "milliseconds.behind.source", "MilliSecondsBehindSource"),
        gauge(registry, tags, jmx, name, "events.seen", "TotalNumberOfEventsSeen"),
        gauge(registry, tags, jmx, name, "connected", "Connected"),
        gauge(registry, tags, jmx, name, "queue.remaining.capacity", "QueueRemainingCapacity"));
  }

  private static Gauge gauge(
      MeterRegistry registry,
      Tags tags,
      MBeanServer jmx,
      ObjectName name,
      String meter,
      String attribute) {
    return Gauge.builder("ordinal.relay.debezium." + meter, jmx, s -> read(s, name, attribute))
        .description("The Debezium engine's streaming metric " + attribute + " (NaN when idle)")
        .tags(tags)
        .register(registry);
  }

  static double read(MBeanServer jmx, ObjectName name, String attribute) {
    try {
      Object v = jmx.getAttribute(name, attribute);
      if (v instanceof Boolean b) {
        return b ? 1 : 0;
      }
      return v instanceof Number n ? n.doubleValue() : Double.NaN;
    } catch (JMException e) {
      return Double.NaN; // not registered: the engine does not run here now
    }
  }
}
