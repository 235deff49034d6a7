package dev.ordinal.cli;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/** A consumer group's committed offsets, set and read over the admin client, for the tests. */
final class GroupOffsets {
  private GroupOffsets() {}

  /** Commits {@code offsets} for {@code group} (which has no active member). */
  static void commit(Admin admin, String group, Map<TopicPartition, Long> offsets)
      throws Exception {
    Map<TopicPartition, OffsetAndMetadata> moves = new HashMap<>();
    offsets.forEach((tp, o) -> moves.put(tp, new OffsetAndMetadata(o)));
    admin.alterConsumerGroupOffsets(group, moves).all().get(10, TimeUnit.SECONDS);
  }

  /** {@code group}'s committed offsets, each partition named by {@code key}, in key order. */
  static <K> Map<K, Long> committed(Admin admin, String group, Function<TopicPartition, K> key)
      throws Exception {
    Map<K, Long> offsets = new TreeMap<>();
    admin
        .listConsumerGroupOffsets(group)
        .partitionsToOffsetAndMetadata()
        .get(10, TimeUnit.SECONDS)
        .forEach((tp, o) -> offsets.put(key.apply(tp), o.offset()));
    return offsets;
  }
}
