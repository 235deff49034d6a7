package dev.ordinal.runtime.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;

/**
 * The process's own meters, bound once on a service's registry: memory ({@code jvm_memory_*}),
 * garbage collection ({@code jvm_gc_*}), threads, classes, CPU ({@code process_cpu_usage}, {@code
 * system_cpu_*}) and uptime. Closing it stops listening for collections.
 */
public final class JvmMeters implements AutoCloseable {
  private final JvmGcMetrics gc = new JvmGcMetrics();

  private JvmMeters() {}

  public static JvmMeters bindTo(MeterRegistry registry) {
    JvmMeters m = new JvmMeters();
    new JvmMemoryMetrics().bindTo(registry);
    m.gc.bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    return m;
  }

  @Override
  public void close() {
    gc.close();
  }
}
