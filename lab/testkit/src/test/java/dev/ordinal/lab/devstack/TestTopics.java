package dev.ordinal.lab.devstack;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/** Topics of the stack's tests, created up front. */
final class TestTopics {
  private TestTopics() {}

  /**
   * Creates {@code topic} with {@code partitions} partitions (replication factor 1) and returns
   * once every partition has a leader: an idempotent producer racing the broker's auto-creation of
   * a topic can be refused until its delivery timeout (KAFKA-15591).
   */
  static void create(String bootstrap, String topic, int partitions) throws Exception {
    try (Admin admin =
        Admin.create(
            Map.<String, Object>of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  admin
                      .describeTopics(List.of(topic))
                      .allTopicNames()
                      .get()
                      .get(topic)
                      .partitions()
                      .stream()
                      .allMatch(p -> p.leader() != null && p.leader().id() >= 0));
    }
  }
}
