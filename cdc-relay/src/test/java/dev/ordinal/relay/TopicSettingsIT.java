package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.messaging.kafka.Topics.Durability;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Topics are created with the replication factor and min.insync.replicas asked for, capped by the
 * brokers present (the test stack has one).
 */
@ExtendWith(OrdinalStackExtension.class)
class TopicSettingsIT {

  @Test
  void theRelayCreatesItsTopicsWithTheDurabilityAskedForCappedByTheOneBrokerPresent(
      TestNamespace ns) throws Exception {
    try (RelayFixture f = RelayFixture.create(ns);
        Admin admin = admin(ns)) {
      assertThat(admin.describeCluster().nodes().get()).hasSize(1);
      assertThat(
              Topics.checkExisting(
                  ns.stack().kafkaBootstrap(), ns.topicPrefix() + ".", Durability.DEFAULT))
          .isEmpty();
      try (OutboxRelay relay =
          new OutboxRelay(
                  f.config("durable")
                      .topicDurability(new Durability(3, 2))
                      .topicPartitions(6)
                      .build(),
                  new SimpleMeterRegistry())
              .start()) {
        relay.awaitStreaming(Duration.ofSeconds(60));
        Outbox outbox = new Outbox(Clock.systemUTC());
        f.owner.transaction(c -> outbox.append(c.dsl(), TestEvents.placed("o-1")));
        org.awaitility.Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> relay.relayed() == 1);
      }
      // 3 and 2 asked for, one broker: 1 and 1, written on the topic rather than left to defaults;
      // the 6 partitions asked for
      assertThat(replicas(admin, f.topic())).containsExactly(1, 1, 1, 1, 1, 1);
      assertThat(minInsync(admin, f.topic())).isEqualTo("1");
      assertThat(configSource(admin, f.topic())).isEqualTo("DYNAMIC_TOPIC_CONFIG");
    }
  }

  @Test
  void ensureReportsWhatATopicHasAndWhatWasWanted(TestNamespace ns) throws Exception {
    String topic = ns.topic("ensured");
    Topics.State created =
        Topics.ensure(ns.stack().kafkaBootstrap(), topic, 2, new Durability(3, 2));
    assertThat(created.created()).isTrue();
    assertThat(created.wanted()).isEqualTo(new Durability(1, 1));
    assertThat(created.durability()).isEqualTo(new Durability(1, 1));
    assertThat(created.warning()).isEmpty();

    Topics.State again = Topics.ensure(ns.stack().kafkaBootstrap(), topic, 2, Durability.DEFAULT);
    assertThat(again.created()).isFalse();
    assertThat(again.durability()).isEqualTo(new Durability(1, 1));
    assertThat(again.warning()).isEmpty();
    try (Admin admin = admin(ns)) {
      assertThat(replicas(admin, topic)).containsExactly(1, 1);
      assertThat(minInsync(admin, topic)).isEqualTo("1");
    }
  }

  private static Admin admin(TestNamespace ns) {
    return Admin.create(
        Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ns.stack().kafkaBootstrap()));
  }

  private static List<Integer> replicas(Admin admin, String topic) throws Exception {
    TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
    return d.partitions().stream().map(p -> p.replicas().size()).toList();
  }

  private static String minInsync(Admin admin, String topic) throws Exception {
    return minInsyncEntry(admin, topic).value();
  }

  private static String configSource(Admin admin, String topic) throws Exception {
    return minInsyncEntry(admin, topic).source().name();
  }

  private static ConfigEntry minInsyncEntry(Admin admin, String topic) throws Exception {
    ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    return admin
        .describeConfigs(List.of(r))
        .all()
        .get()
        .get(r)
        .get(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG);
  }
}
