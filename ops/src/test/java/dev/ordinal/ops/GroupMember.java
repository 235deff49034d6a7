package dev.ordinal.ops;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** A live member of a consumer group, for tests of what may be done to a group with members. */
public final class GroupMember {
  private GroupMember() {}

  /**
   * A consumer in {@code group} that reads from the earliest offset and commits only when told,
   * with {@code extra} settings on top; not subscribed yet.
   */
  public static KafkaConsumer<String, String> of(
      String bootstrap, String group, Map<String, Object> extra) {
    Map<String, Object> config = new HashMap<>(extra);
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    return new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
  }

  /** Subscribes {@code member} to {@code topic} and polls until {@code joined} holds (30 s). */
  public static void join(
      KafkaConsumer<String, String> member,
      String topic,
      Predicate<KafkaConsumer<String, String>> joined) {
    member.subscribe(List.of(topic));
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              member.poll(Duration.ofMillis(100));
              return joined.test(member);
            });
  }
}
