package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PollingRelayConfigTest {
  static final DatabaseSettings DB =
      new DatabaseSettings("jdbc:postgresql://db:5433/app", "relay", "s3cret").withSchema("orders");

  static PollingRelayConfig defaults() {
    return PollingRelayConfig.of(DB, "kafka:9092", "ordinal");
  }

  @Test
  void defaultsAreHalfASecond500RowsAThirtySecondLeaseAndARandomInstanceId() {
    PollingRelayConfig c = defaults();
    assertThat(c.pollInterval()).isEqualTo(Duration.ofMillis(500));
    assertThat(c.batchSize()).isEqualTo(500);
    assertThat(c.lease()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.deliveryTimeout()).isEqualTo(Duration.ofSeconds(15));
    assertThat(c.maxBlock()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.sendTimeout()).isEqualTo(Duration.ofSeconds(20)).isLessThan(c.lease());
    assertThat(c.instanceId()).hasSizeBetween(1, 64).isNotEqualTo(defaults().instanceId());
    assertThat(c.kafka()).isEmpty();
  }

  @Test
  void toStringHidesThePassword() {
    assertThat(defaults().toString()).doesNotContain("s3cret").contains("instance=");
  }

  @Test
  void instanceIdMustFitLeaseOwner() {
    assertThat(defaults().withInstanceId("x".repeat(64)).instanceId()).hasSize(64);
    assertThatThrownBy(() -> defaults().withInstanceId("x".repeat(65)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("instanceId must be 1 to 64 characters");
    assertThatThrownBy(() -> defaults().withInstanceId(""))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("instanceId");
  }

  @Test
  void batchSizeIsOneTo10000AndPollIntervalPositive() {
    assertThat(defaults().withPolling(Duration.ofMillis(1), 1).batchSize()).isEqualTo(1);
    assertThat(defaults().withPolling(null, 10_000).pollInterval())
        .isEqualTo(PollingRelayConfig.DEFAULT_POLL_INTERVAL);
    assertThatThrownBy(() -> defaults().withPolling(null, 0))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("batchSize must be between 1 and 10000: 0");
    assertThatThrownBy(() -> defaults().withPolling(null, 10_001))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("batchSize must be between 1 and 10000: 10001");
    assertThatThrownBy(() -> defaults().withPolling(Duration.ZERO, 10))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("pollInterval must be positive: PT0S");
  }

  @Test
  void leaseMustOutlastTheProducersDeliveryTimeoutPlusMaxBlock() {
    assertThatThrownBy(() -> defaults().withLease(Duration.ofSeconds(20)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith(
            "lease (20000 ms) must be longer than the producer's delivery.timeout.ms (15000) plus"
                + " max.block.ms (5000)")
        .hasMessageContaining("raise lease, or lower kafka delivery.timeout.ms");
    assertThatThrownBy(() -> defaults().withLease(Duration.ZERO))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("lease must be positive: PT0S");

    // a shorter delivery timeout allows a shorter lease; string or number, as Kafka takes them
    PollingRelayConfig short10 =
        defaults()
            .withKafka(Map.of("delivery.timeout.ms", "6000", "max.block.ms", 2000))
            .withLease(Duration.ofSeconds(10));
    assertThat(short10.sendTimeout()).isEqualTo(Duration.ofSeconds(8));
    assertThatThrownBy(() -> defaults().withKafka(Map.of("delivery.timeout.ms", 40_000)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("lease (30000 ms) must be longer")
        .hasMessageContaining("delivery.timeout.ms (40000)");
    assertThatThrownBy(() -> defaults().withKafka(Map.of("max.block.ms", "soon")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("kafka max.block.ms must be a number of milliseconds: soon");
  }

  @Test
  void theIdempotentAllAcksProducerCannotBeWeakened() {
    assertThat(defaults().withKafka(Map.of("acks", "-1", "enable.idempotence", "true")).kafka())
        .hasSize(2);
    assertThatThrownBy(() -> defaults().withKafka(Map.of("acks", "1")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("kafka acks=1 is refused")
        .hasMessageContaining("needs acks=all");
    assertThatThrownBy(() -> defaults().withKafka(Map.of("enable.idempotence", false)))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("kafka enable.idempotence=false is refused");
  }

  @Test
  void whereThingsAreMustBeSet() {
    assertThatThrownBy(() -> PollingRelayConfig.of(null, "kafka:9092", "ordinal"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("db must be set");
    assertThatThrownBy(() -> PollingRelayConfig.of(DB, " ", "ordinal"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("ORDINAL_KAFKA_BOOTSTRAP");
    assertThatThrownBy(() -> PollingRelayConfig.of(DB, "kafka:9092", "bad prefix"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("topicPrefix");
  }
}
