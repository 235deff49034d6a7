package dev.ordinal.messaging.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.kafka.Topics.Durability;
import org.junit.jupiter.api.Test;

class TopicDurabilityTest {

  @Test
  void theDefaultIsThreeCopiesAndTwoInSync() {
    assertThat(Durability.DEFAULT).isEqualTo(new Durability(3, 2));
  }

  @Test
  void theBrokersPresentCapTheReplicationFactorAndItCapsMinInsyncReplicas() {
    assertThat(Durability.DEFAULT.cappedTo(5)).isEqualTo(new Durability(3, 2));
    assertThat(Durability.DEFAULT.cappedTo(3)).isEqualTo(new Durability(3, 2));
    assertThat(Durability.DEFAULT.cappedTo(2)).isEqualTo(new Durability(2, 2));
    assertThat(Durability.DEFAULT.cappedTo(1)).isEqualTo(new Durability(1, 1));
    assertThat(new Durability(3, 1).cappedTo(2)).isEqualTo(new Durability(2, 1));
  }

  @Test
  void impossibleValuesAreRefusedWithASentence() {
    assertThatThrownBy(() -> new Durability(0, 1))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("--replication-factor must be 1 to 32767, not 0");
    assertThatThrownBy(() -> new Durability(2, 3))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("--min-insync-replicas must be 1 to the replication factor (2), not 3");
    assertThatThrownBy(() -> new Durability(2, 0)).isInstanceOf(ConfigurationException.class);
  }

  @Test
  void aTopicBelowWhatIsAskedForGetsAWarningNamingBoth() {
    assertThat(Topics.shortfall("t", new Durability(3, 2), new Durability(3, 2))).isEmpty();
    assertThat(Topics.shortfall("t", new Durability(3, 3), new Durability(3, 2))).isEmpty();
    assertThat(Topics.shortfall("ordinal.order", new Durability(1, 1), new Durability(3, 2)))
        .hasValue(
            "Topic ordinal.order has replication factor 1 and min.insync.replicas 1, below the 3"
                + " and 2 asked for, so an acknowledged write may exist in fewer copies: raise"
                + " them (kafka-reassign-partitions, kafka-configs --alter --add-config"
                + " min.insync.replicas=...).");
    assertThat(Topics.shortfall("t", new Durability(3, 1), new Durability(3, 2))).isPresent();
  }
}
