package dev.ordinal.relay.internal;

import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** An OpenTelemetry SDK tracer whose ended spans are kept here, in the order they ended. */
final class RecordedSpans implements SpanExporter {
  final List<SpanData> ended = new CopyOnWriteArrayList<>();
  final Tracer tracer =
      SdkTracerProvider.builder()
          .addSpanProcessor(SimpleSpanProcessor.create(this))
          .build()
          .get("test");

  @Override
  public CompletableResultCode export(Collection<SpanData> spans) {
    ended.addAll(spans);
    return CompletableResultCode.ofSuccess();
  }

  @Override
  public CompletableResultCode flush() {
    return CompletableResultCode.ofSuccess();
  }

  @Override
  public CompletableResultCode shutdown() {
    return CompletableResultCode.ofSuccess();
  }
}
