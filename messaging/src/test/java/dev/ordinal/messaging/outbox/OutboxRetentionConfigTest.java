package dev.ordinal.messaging.outbox;

import static dev.ordinal.messaging.outbox.OutboxRetentionMode.AFTER_AGE;
import static dev.ordinal.messaging.outbox.OutboxRetentionMode.AFTER_DISPATCH;
import static dev.ordinal.messaging.outbox.OutboxRetentionMode.DELETE_ON_WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ordinal.messaging.ConfigurationException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class OutboxRetentionConfigTest {

  @Test
  void ofUsesTheDefaultBatchSizeAndInterval() {
    OutboxRetentionConfig c = OutboxRetentionConfig.of(AFTER_AGE, Duration.ofHours(1));
    assertThat(c.batchSize()).isEqualTo(500);
    assertThat(c.interval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(c.retention()).isEqualTo(Duration.ofHours(1));
  }

  @Test
  void aNullIntervalIsTheDefault() {
    assertThat(new OutboxRetentionConfig(AFTER_DISPATCH, Duration.ZERO, 1, null).interval())
        .isEqualTo(OutboxRetentionConfig.DEFAULT_INTERVAL);
  }

  @Test
  void deleteOnWriteNeedsNoRetention() {
    assertThat(new OutboxRetentionConfig(DELETE_ON_WRITE, null, 500, null).retention())
        .isEqualTo(Duration.ZERO);
    assertThat(OutboxRetentionConfig.deleteOnWrite().mode()).isEqualTo(DELETE_ON_WRITE);
  }

  @Test
  void theModeMustBeSet() {
    assertThatThrownBy(() -> OutboxRetentionConfig.of(null, Duration.ZERO))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("--outbox-retention must be set");
  }

  @Test
  void theAgeModesNeedARetention() {
    assertThatThrownBy(() -> OutboxRetentionConfig.of(AFTER_AGE, null))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "retention must be set for mode AFTER_AGE: how long a row is kept after occurred_at");
    assertThatThrownBy(() -> OutboxRetentionConfig.of(AFTER_DISPATCH, null))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "retention must be set for mode AFTER_DISPATCH: how long a row is kept after"
                + " dispatched_at");
  }

  @Test
  void aNegativeRetentionIsRefused() {
    assertThatThrownBy(() -> OutboxRetentionConfig.of(AFTER_AGE, Duration.ofSeconds(-1)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("--outbox-retention-age must not be negative, not PT-1S");
  }

  @Test
  void aRetentionWithDeleteOnWriteSaysWhatToChange() {
    assertThatThrownBy(() -> OutboxRetentionConfig.of(DELETE_ON_WRITE, Duration.ofDays(7)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage(
            "retention has no effect in mode DELETE_ON_WRITE (rows are deleted as they are"
                + " written): set it to zero, or use mode AFTER_AGE to keep rows for PT168H");
  }

  @Test
  void theBatchSizeIsOneToTenThousand() {
    assertThat(new OutboxRetentionConfig(AFTER_AGE, Duration.ZERO, 1, null).batchSize())
        .isEqualTo(1);
    assertThat(new OutboxRetentionConfig(AFTER_AGE, Duration.ZERO, 10_000, null).batchSize())
        .isEqualTo(10_000);
    assertThatThrownBy(() -> new OutboxRetentionConfig(AFTER_AGE, Duration.ZERO, 0, null))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("batchSize must be between 1 and 10000: 0");
    assertThatThrownBy(() -> new OutboxRetentionConfig(AFTER_AGE, Duration.ZERO, 10_001, null))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("batchSize must be between 1 and 10000: 10001");
  }

  @Test
  void theIntervalMustBePositive() {
    assertThatThrownBy(
            () -> new OutboxRetentionConfig(AFTER_AGE, Duration.ZERO, 500, Duration.ZERO))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("interval must be positive: PT0S");
    assertThatThrownBy(
            () -> new OutboxRetentionConfig(AFTER_AGE, Duration.ZERO, 500, Duration.ofMillis(-5)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("interval must be positive: PT-0.005S");
  }
}
