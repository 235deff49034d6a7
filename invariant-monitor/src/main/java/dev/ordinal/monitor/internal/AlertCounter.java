package dev.ordinal.monitor.internal;

import dev.ordinal.monitor.Alert;
import dev.ordinal.monitor.AlertKind;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Counts every alert in {@code ordinal.monitor.alerts{kind}} on its way to the alerts topic; each
 * kind's counter exists from the start at 0, so an alert rule's {@code increase()} sees the first
 * alert of a kind.
 */
public final class AlertCounter implements Processor<String, Alert, String, Alert> {
  public static final String METRIC = "ordinal.monitor.alerts";

  private final MeterRegistry registry;
  private ProcessorContext<String, Alert> context;

  public AlertCounter(MeterRegistry registry) {
    this.registry = registry;
    for (AlertKind kind : AlertKind.values()) {
      counter(kind);
    }
  }

  @Override
  public void init(ProcessorContext<String, Alert> context) {
    this.context = context;
  }

  @Override
  public void process(Record<String, Alert> record) {
    counter(record.value().kind()).increment();
    context.forward(record);
  }

  private Counter counter(AlertKind kind) {
    return Counter.builder(METRIC)
        .description("invariant violations reported on the alerts topic")
        .tag("kind", kind.name())
        .register(registry);
  }
}
