package dev.ordinal.relay.internal;

import dev.ordinal.runtime.Tracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import org.apache.kafka.clients.producer.Callback;

/**
 * The relay's span of one relayed event: {@link SpanKind#PRODUCER}, named {@code publish <topic>},
 * the child of the row's {@code traceparent} (with its {@code tracestate}; a trace of its own when
 * the row has none), started before the send and ended when Kafka acknowledges the record, with an
 * error status when it does not. The record's headers keep the row's trace context as it is, so
 * every relay path (this one, the polling relay, the Connect transformation, which makes no span)
 * writes the same bytes; the span is a sibling of the consumer's, not its parent.
 *
 * <p>Off (no tracer) unless this process records spans ({@link Tracing#active()}): then nothing is
 * allocated per event, the span being {@link Span#getInvalid()} and the callback the caller's own.
 */
public final class PublishSpan {
  private final Tracer tracer;

  /** Spans of {@code tracer}; none when it is null. */
  PublishSpan(Tracer tracer) {
    this.tracer = tracer;
  }

  /** This process's: Ordinal's tracer when it records spans, else none. */
  public static PublishSpan ofProcess() {
    return new PublishSpan(Tracing.active() ? Tracing.tracer() : null);
  }

  /** The started span of an event to {@code topic} whose row has this trace context. */
  public Span start(String topic, String traceparent, String tracestate) {
    if (tracer == null) {
      return Span.getInvalid();
    }
    return tracer
        .spanBuilder("publish " + topic)
        .setSpanKind(SpanKind.PRODUCER)
        .setParent(traceparent == null ? Context.root() : Tracing.extract(traceparent, tracestate))
        .setAttribute("messaging.system", "kafka")
        .setAttribute("messaging.operation.type", "send")
        .setAttribute("messaging.destination.name", topic)
        .startSpan();
  }

  /** {@code then}, after ending {@code span} as Kafka's answer says; {@code then} may be null. */
  public static Callback ending(Span span, Callback then) {
    if (!span.getSpanContext().isValid()) {
      return then;
    }
    return (metadata, failure) -> {
      if (failure == null) {
        span.end();
      } else {
        failed(span, failure);
      }
      if (then != null) {
        then.onCompletion(metadata, failure);
      }
    };
  }

  /** Ends {@code span} as failed by {@code failure} (a send that threw before it was under way). */
  public static void failed(Span span, Throwable failure) {
    span.setStatus(StatusCode.ERROR, failure.getClass().getSimpleName());
    span.end();
  }
}
