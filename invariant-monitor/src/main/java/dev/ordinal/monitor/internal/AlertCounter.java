package dev.ordinal.monitor.internal;

import dev.ordinal.monitor.Alert;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/** Counts every alert in {@code ordinal.monitor.alerts{kind}} on its way to the alerts topic. */
public final class AlertCounter implements Processor<String, Alert, String, Alert> {
  public static final String METRIC = "ordinal.monitor.alerts";

  private final MeterRegistry registry;
  private ProcessorContext<String, Alert> context;

  public AlertCounter(MeterRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void init(ProcessorContext<String, Alert> context) {
    this.context = context;
  }

  @Override
  public void process(Record<String, Alert> record) {
    Counter.builder(METRIC)
        .description("invariant violations reported on the alerts topic")
        .tag("kind", record.value().kind().name())
        .register(registry)
        .increment();
    context.forward(record);
  }
}
