package dev.ordinal.relay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

/** The relay's span of one event: its kind, name, parent, and its end on Kafka's answer. */
class PublishSpanTest {
  static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  static final String ROW_SPAN = "00f067aa0ba902b7";
  static final String TRACEPARENT = "00-" + TRACE_ID + "-" + ROW_SPAN + "-01";

  @Test
  void aProducerSpanChildOfTheRowsTraceparentEndsOnTheAcknowledgement() {
    RecordedSpans recorded = new RecordedSpans();
    Span span = new PublishSpan(recorded.tracer).start("p.order", TRACEPARENT, "ordinal=t1");
    int[] then = {0};
    Callback callback = PublishSpan.ending(span, (m, e) -> then[0]++);
    assertThat(recorded.ended).as("not before Kafka answers").isEmpty();

    callback.onCompletion(null, null);

    assertThat(then[0]).isEqualTo(1);
    assertThat(recorded.ended).hasSize(1);
    SpanData s = recorded.ended.get(0);
    assertThat(s.getName()).isEqualTo("publish p.order");
    assertThat(s.getKind()).isEqualTo(SpanKind.PRODUCER);
    assertThat(s.getTraceId()).isEqualTo(TRACE_ID);
    assertThat(s.getParentSpanId()).isEqualTo(ROW_SPAN);
    assertThat(s.getSpanContext().getTraceState().get("ordinal")).isEqualTo("t1");
    assertThat(s.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
    assertThat(s.getAttributes().asMap().toString())
        .contains("messaging.destination.name=p.order", "messaging.system=kafka");
  }

  @Test
  void aRefusedSendEndsItsSpanAsAnErrorAndARowWithoutTraceparentStartsATrace() {
    RecordedSpans recorded = new RecordedSpans();
    PublishSpan spans = new PublishSpan(recorded.tracer);

    PublishSpan.ending(spans.start("p.order", TRACEPARENT, null), null)
        .onCompletion(null, new TimeoutException("expired"));
    PublishSpan.failed(spans.start("p.order", null, null), new IllegalStateException("closed"));

    assertThat(recorded.ended).hasSize(2);
    assertThat(recorded.ended.get(0).getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(recorded.ended.get(0).getStatus().getDescription()).isEqualTo("TimeoutException");
    assertThat(recorded.ended.get(1).getParentSpanContext().isValid()).isFalse();
    assertThat(recorded.ended.get(1).getTraceId()).isNotEqualTo(TRACE_ID);
    assertThat(recorded.ended.get(1).getStatus().getDescription())
        .isEqualTo("IllegalStateException");
  }

  @Test
  void offItMakesNoSpanAndHandsBackTheCallersCallback() {
    PublishSpan off = new PublishSpan(null);
    Span span = off.start("p.order", TRACEPARENT, "ordinal=t1");
    Callback mine = (m, e) -> {};

    assertThat(span).isSameAs(Span.getInvalid());
    assertThat(PublishSpan.ending(span, mine)).isSameAs(mine);
    assertThat(PublishSpan.ending(span, null)).isNull();
  }
}
