package dev.ordinal.ops.dlq;

import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The dead letters of a topic that a filter matches and that were not discarded, with how many
 * times each was re-driven.
 *
 * @param discarded how many letters the filter matched that were discarded (not in {@code letters})
 */
public record DeadLetterList(
    String topic,
    DeadLetterFilter filter,
    List<DeadLetter> letters,
    Map<DeadLetter.Position, Integer> redriven,
    int discarded) {

  public DeadLetterList {
    letters = List.copyOf(letters);
    redriven = Map.copyOf(redriven);
  }

  /** How many times {@code d} was re-driven from this topic (the log's count). */
  public int redriven(DeadLetter d) {
    return redriven.getOrDefault(d.position(), 0);
  }

  /** How many letters per error, most first, then by error. */
  public Map<String, Long> byError() {
    return countBy(letters.stream().map(d -> d.error().orElse("-")).toList());
  }

  /** Counts of each value, most first, then by value. */
  static Map<String, Long> countBy(List<String> values) {
    return values.stream()
        .collect(Collectors.groupingBy(Function.identity(), Collectors.counting()))
        .entrySet()
        .stream()
        .sorted(
            Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder())
                .thenComparing(Map.Entry.comparingByKey()))
        .collect(
            Collectors.toMap(
                Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, LinkedHashMap::new));
  }
}
