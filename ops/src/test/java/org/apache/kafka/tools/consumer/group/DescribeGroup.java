package org.apache.kafka.tools.consumer.group;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Test access to what {@code kafka-consumer-groups --bootstrap-server BS --describe --group G}
 * prints: Kafka's own {@code ConsumerGroupCommand}, run in-process. Its service and rows are
 * package-private, hence this class in Kafka's package (test sources only). Columns the tool prints
 * as {@code -} are null here.
 */
public final class DescribeGroup {
  private DescribeGroup() {}

  /** One row of the describe table. */
  public record Row(
      String topic,
      int partition,
      Long currentOffset,
      Long logEndOffset,
      Long lag,
      String consumerId,
      String host,
      String clientId) {}

  /** The group's state as the tool reports it, and its rows sorted by topic and partition. */
  public record Result(String state, List<Row> rows) {}

  public static Result describe(String bootstrapServers, String group) throws Exception {
    ConsumerGroupCommandOptions opts =
        ConsumerGroupCommandOptions.fromArgs(
            new String[] {"--bootstrap-server", bootstrapServers, "--describe", "--group", group});
    try (ConsumerGroupCommand.ConsumerGroupService service =
        new ConsumerGroupCommand.ConsumerGroupService(opts, Map.of())) {
      var collected = service.collectGroupOffsets(group);
      String state = collected.getKey().map(Object::toString).orElse(null);
      List<Row> rows =
          collected.getValue().orElse(List.of()).stream()
              .filter(r -> r.topic().isPresent())
              .map(
                  r ->
                      new Row(
                          r.topic().get(),
                          r.partition().orElse(-1),
                          r.offset().orElse(null),
                          r.logEndOffset().orElse(null),
                          r.lag().orElse(null),
                          column(r.consumerId()),
                          column(r.host()),
                          column(r.clientId())))
              .sorted(Comparator.comparing(Row::topic).thenComparingInt(Row::partition))
              .toList();
      return new Result(state, rows);
    }
  }

  private static String column(Optional<String> value) {
    return value.filter(v -> !v.equals(ConsumerGroupCommand.MISSING_COLUMN_VALUE)).orElse(null);
  }
}
