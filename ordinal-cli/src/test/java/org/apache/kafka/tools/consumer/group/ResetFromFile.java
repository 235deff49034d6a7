package org.apache.kafka.tools.consumer.group;

import java.nio.file.Path;
import java.util.Map;

/**
 * Test access to {@code kafka-consumer-groups --bootstrap-server BS --group G --reset-offsets
 * --from-file FILE --execute}: Kafka's own {@code ConsumerGroupCommand}, run in-process. Its
 * service is package-private, hence this class in Kafka's package (test sources only); unlike the
 * tool's {@code main}, a failure is thrown, not printed.
 */
public final class ResetFromFile {
  private ResetFromFile() {}

  /** Applies {@code file} to {@code group}; returns the offsets Kafka set, by "topic-partition". */
  public static Map<String, Long> execute(String bootstrapServers, String group, Path file)
      throws Exception {
    ConsumerGroupCommandOptions opts =
        ConsumerGroupCommandOptions.fromArgs(
            new String[] {
              "--bootstrap-server",
              bootstrapServers,
              "--group",
              group,
              "--reset-offsets",
              "--from-file",
              file.toString(),
              "--execute"
            });
    try (ConsumerGroupCommand.ConsumerGroupService service =
        new ConsumerGroupCommand.ConsumerGroupService(opts, Map.of())) {
      Map<String, Long> set = new java.util.TreeMap<>();
      service
          .resetOffsets()
          .getOrDefault(group, Map.of())
          .forEach((tp, o) -> set.put(tp.toString(), o.offset()));
      return set;
    }
  }
}
