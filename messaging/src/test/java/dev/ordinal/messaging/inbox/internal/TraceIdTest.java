package dev.ordinal.messaging.inbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The trace id an inbox record's log lines carry: the second field of its W3C traceparent. */
class TraceIdTest {

  @Test
  void theTraceIdIsTheSecondFieldOfAW3cTraceparent() {
    assertThat(RecordApplier.traceId("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"))
        .contains("0af7651916cd43dd8448eb211c80319c");
  }

  @Test
  void anythingElseHasNone() {
    assertThat(RecordApplier.traceId("00-trace-1")).isEmpty();
    assertThat(RecordApplier.traceId("00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01"))
        .isEmpty();
    assertThat(RecordApplier.traceId("00-00000000000000000000000000000000-b7ad6b7169203331-01"))
        .isEmpty();
    assertThat(RecordApplier.traceId("")).isEmpty();
  }
}
