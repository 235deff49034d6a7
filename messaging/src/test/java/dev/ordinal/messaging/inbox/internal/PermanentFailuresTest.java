package dev.ordinal.messaging.inbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class PermanentFailuresTest {
  static final TopicPartition P0 = new TopicPartition("orders", 0);
  static final TopicPartition P1 = new TopicPartition("orders", 1);

  @Test
  void triesOfOneRecordAreCountedPerPartitionAndStartOverForAnotherRecord() {
    PermanentFailures f = new PermanentFailures();
    assertThat(f.failed(P0, 7)).isEqualTo(1);
    assertThat(f.failed(P0, 7)).isEqualTo(2);
    assertThat(f.failed(P1, 7)).isEqualTo(1);
    assertThat(f.failed(P0, 7)).isEqualTo(3);
    assertThat(f.failed(P0, 8)).isEqualTo(1);
    f.passed(P0);
    assertThat(f.failed(P0, 8)).isEqualTo(1);
    f.forget(List.of(P1));
    assertThat(f.failed(P1, 7)).isEqualTo(1);
  }
}
