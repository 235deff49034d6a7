package dev.ordinal.ops.dlq;

import dev.ordinal.messaging.ConfigurationException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Which dead letters a command applies to: every clause must hold. A clause is {@code field=value}
 * (equal) or {@code field~=text} (contains, ignoring case), e.g. {@code message-id=42}, {@code
 * error~=unknown currency}, {@code offset=17}. No clause matches every dead letter.
 */
public record DeadLetterFilter(List<Clause> clauses) {

  /** Matches every dead letter. */
  public static final DeadLetterFilter ALL = new DeadLetterFilter(List.of());

  public DeadLetterFilter {
    clauses = List.copyOf(clauses);
  }

  /** What a clause can look at. */
  public enum Field {
    MESSAGE_ID("message-id", false, d -> d.messageId()),
    ERROR("error", false, DeadLetter::error),
    CONSUMER("consumer", false, DeadLetter::consumer),
    KEY("key", false, d -> Optional.ofNullable(d.key())),
    PARTITION("partition", true, d -> Optional.of(Integer.toString(d.partition()))),
    OFFSET("offset", true, d -> Optional.of(Long.toString(d.offset()))),
    ORIGINAL_TOPIC("original-topic", false, DeadLetter::originalTopic),
    ORIGINAL_PARTITION(
        "original-partition",
        true,
        d -> d.originalPartition().stream().mapToObj(Integer::toString).findFirst()),
    ORIGINAL_OFFSET(
        "original-offset",
        true,
        d -> d.originalOffset().stream().mapToObj(Long::toString).findFirst());

    private final String label;
    private final boolean numeric;
    private final Function<DeadLetter, Optional<String>> value;

    Field(String label, boolean numeric, Function<DeadLetter, Optional<String>> value) {
      this.label = label;
      this.numeric = numeric;
      this.value = value;
    }

    /** The name used in a clause. */
    public String label() {
      return label;
    }

    static Optional<Field> byLabel(String label) {
      return Arrays.stream(values())
          .filter(f -> f.label.equals(label.trim().toLowerCase(Locale.ROOT)))
          .findFirst();
    }

    static String labels() {
      return Arrays.stream(values()).map(Field::label).collect(Collectors.joining(", "));
    }
  }

  /**
   * One condition.
   *
   * @param contains {@code ~=} (contains, ignoring case) rather than {@code =} (equal)
   */
  public record Clause(Field field, boolean contains, String value) {
    public Clause {
      if (field == null || value == null || value.isEmpty()) {
        throw new ConfigurationException("A dead-letter filter clause needs a field and a value");
      }
      if (field.numeric && !contains) {
        try {
          value = Long.toString(Long.parseLong(value.trim()));
        } catch (NumberFormatException e) {
          throw new ConfigurationException(
              field.label + "=" + value + " is not a number; " + field.label + " takes one");
        }
      }
    }

    boolean test(DeadLetter d) {
      Optional<String> actual = field.value.apply(d);
      if (actual.isEmpty()) {
        return false;
      }
      return contains
          ? actual.get().toLowerCase(Locale.ROOT).contains(value.toLowerCase(Locale.ROOT))
          : actual.get().equals(value);
    }

    @Override
    public String toString() {
      return field.label + (contains ? "~=" : "=") + value;
    }
  }

  /**
   * Parses clauses such as {@code message-id=42} or {@code error~=timeout}.
   *
   * @throws ConfigurationException one sentence naming the clause and the fields there are
   */
  public static DeadLetterFilter parse(List<String> expressions) {
    List<Clause> clauses = new ArrayList<>();
    for (String e : expressions == null ? List.<String>of() : expressions) {
      int eq = e.indexOf('=');
      if (eq <= 0 || eq == e.length() - 1 || (eq == 1 && e.charAt(0) == '~')) {
        throw new ConfigurationException(
            "The filter '"
                + e
                + "' must be field=value or field~=text, with a field among "
                + Field.labels());
      }
      boolean contains = e.charAt(eq - 1) == '~';
      String name = e.substring(0, contains ? eq - 1 : eq);
      Field field =
          Field.byLabel(name)
              .orElseThrow(
                  () ->
                      new ConfigurationException(
                          "The filter '"
                              + e
                              + "' names no known field; use one of "
                              + Field.labels()));
      clauses.add(new Clause(field, contains, e.substring(eq + 1)));
    }
    return new DeadLetterFilter(clauses);
  }

  public boolean test(DeadLetter d) {
    return clauses.stream().allMatch(c -> c.test(d));
  }

  @Override
  public String toString() {
    return clauses.isEmpty()
        ? "all"
        : clauses.stream().map(Clause::toString).collect(Collectors.joining(" and "));
  }
}
