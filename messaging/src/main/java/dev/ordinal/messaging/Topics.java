package dev.ordinal.messaging;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/** Creates topics that a process reads or writes, when they do not exist yet. */
public final class Topics {
  public static final int DEFAULT_PARTITIONS = 3;

  private Topics() {}

  /** Creates {@code topic} with {@code partitions} partitions unless it exists (any size). */
  public static void ensure(String bootstrapServers, String topic, int partitions) {
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) -1))).all().get();
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new MessagingException("Cannot create topic " + topic + ": " + e.getCause(), e);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MessagingException("Interrupted while creating topic " + topic, e);
    }
  }
}
