package dev.ordinal.runtime.settings;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * One setting of a service, written once: its name, type, default, parser, check and a one-line
 * description. Everything else is derived from it: the option ({@code --concurrency}), the
 * environment variable ({@code ORDINAL_BILLING_CONCURRENCY}), the key of the {@code ORDINAL_CONFIG}
 * file ({@code billing.concurrency}), the default {@code --help} shows, the docs' table, and every
 * sentence that refuses a value ({@code --concurrency must be 1 to 256, not 0}). Each service's
 * settings record lists its settings in {@code ALL} and checks its values with them.
 *
 * <p>A setting with a default refuses null; one without ({@link #hasDefault()} false: an instance
 * id, a slot name) takes null for "not set" and its {@link #defaultText()} says what happens then.
 *
 * @param <T> the value's type
 */
public final class Setting<T> {
  /** How the value is written on the command line. */
  public enum Kind {
    /** {@code --concurrency 8}. */
    VALUE,
    /** {@code --allow-short-retention}, no value; {@code --no-create-publication} when on. */
    FLAG,
    /** {@code --schema orders,billing} or repeated; the value is a list. */
    LIST
  }

  private static final String PREFIX = "ORDINAL_";

  private final String name;
  private final Kind kind;
  private final Class<?> type;
  private final T defaultValue;
  private final String defaultText;
  private final String description;
  private final Function<String, ?> parser;
  private final Function<T, String> format;
  private final Check<T> check;

  private Setting(
      String name,
      Kind kind,
      Class<?> type,
      T defaultValue,
      String defaultText,
      String description,
      Function<String, ?> parser,
      Function<T, String> format,
      Check<T> check) {
    if (!name.matches("[a-z][a-z0-9-]*")) {
      throw new IllegalArgumentException("a setting's name is lower-case words and '-': " + name);
    }
    this.name = name;
    this.kind = kind;
    this.type = type;
    this.defaultValue = defaultValue;
    this.defaultText = defaultValue != null ? format.apply(defaultValue) : defaultText;
    this.description = Objects.requireNonNull(description, "description");
    this.parser = parser;
    this.format = format;
    this.check = Objects.requireNonNull(check, "check");
  }

  // ---- the kinds of setting ----

  /**
   * How values of one type are read and written: the class a setting reports ({@link #type()}), its
   * parser and its format.
   */
  private record Syntax<T>(Class<?> type, Function<String, ?> parser, Function<T, String> format) {}

  private static final Syntax<String> TEXT = new Syntax<>(String.class, s -> s, s -> s);
  private static final Syntax<Integer> WHOLE_NUMBER =
      new Syntax<>(Integer.class, Setting::parseInt, String::valueOf);
  private static final Syntax<Duration> DURATION =
      new Syntax<>(Duration.class, Durations::parse, Durations::format);
  private static final Syntax<URI> URL = new Syntax<>(URI.class, Setting::parseUri, URI::toString);
  private static final Syntax<Boolean> TRUE_OR_FALSE =
      new Syntax<>(Boolean.class, Setting::parseBoolean, String::valueOf);

  /** A text. */
  public static Setting<String> string(
      String name, String defaultValue, String description, Check<String> check) {
    return defaulted(name, Kind.VALUE, TEXT, defaultValue, description, check);
  }

  /** A text that may be left unset; {@code whenAbsent} says what is used then ("random"). */
  public static Setting<String> optionalString(
      String name, String whenAbsent, String description, Check<String> check) {
    return new Setting<>(
        name, Kind.VALUE, String.class, null, whenAbsent, description, s -> s, s -> s, check);
  }

  /** A whole number. */
  public static Setting<Integer> integer(
      String name, int defaultValue, String description, Check<Integer> check) {
    return defaulted(name, Kind.VALUE, WHOLE_NUMBER, defaultValue, description, check);
  }

  /** A duration: ISO-8601 or the short form ({@link Durations}). */
  public static Setting<Duration> duration(
      String name, Duration defaultValue, String description, Check<Duration> check) {
    return defaulted(name, Kind.VALUE, DURATION, defaultValue, description, check);
  }

  /** A URL. */
  public static Setting<URI> url(
      String name, URI defaultValue, String description, Check<URI> check) {
    return defaulted(name, Kind.VALUE, URL, defaultValue, description, check);
  }

  /** On or off; given alone ({@code --allow-short-retention}), or negated when on by default. */
  public static Setting<Boolean> flag(String name, boolean defaultValue, String description) {
    return defaulted(name, Kind.FLAG, TRUE_OR_FALSE, defaultValue, description, Check.any());
  }

  /**
   * One of {@code type}'s constants, written in lower case with '-' for '_' ({@code after-age}).
   */
  public static <E extends Enum<E>> Setting<E> choice(
      String name, Class<E> type, E defaultValue, String description) {
    Syntax<E> syntax = new Syntax<>(type, text -> parseChoice(type, text), Setting::choiceText);
    return defaulted(name, Kind.VALUE, syntax, defaultValue, description, Check.any());
  }

  /**
   * A list, comma-separated or repeated; {@code whenEmpty} says what an empty one means when the
   * default is empty.
   */
  public static <E> Setting<List<E>> list(
      String name,
      Class<E> element,
      Function<String, E> parser,
      List<E> defaultValue,
      String whenEmpty,
      String description,
      Check<List<E>> check) {
    Syntax<List<E>> syntax =
        new Syntax<>(
            element,
            parser,
            l -> l.isEmpty() ? whenEmpty : l.stream().map(String::valueOf).collect(joining()));
    return defaulted(name, Kind.LIST, syntax, List.copyOf(defaultValue), description, check);
  }

  /** A setting with a default, which is then its {@link #defaultText()}. */
  private static <T> Setting<T> defaulted(
      String name,
      Kind kind,
      Syntax<T> syntax,
      T defaultValue,
      String description,
      Check<T> check) {
    return new Setting<>(
        name,
        kind,
        syntax.type(),
        Objects.requireNonNull(defaultValue, "defaultValue"),
        null,
        description,
        syntax.parser(),
        syntax.format(),
        check);
  }

  // ---- derived settings ----

  /** This setting with another default (a service's own default for a library's setting). */
  public Setting<T> withDefault(T value) {
    return defaulted(
        name,
        kind,
        new Syntax<>(type, parser, format),
        Objects.requireNonNull(value, "value"),
        description,
        check);
  }

  /** This setting described for one service. */
  public Setting<T> withDescription(String text) {
    return new Setting<>(name, kind, type, defaultValue, defaultText, text, parser, format, check);
  }

  // ---- what it is ----

  /** {@code concurrency}. */
  public String name() {
    return name;
  }

  /** {@code --concurrency}: the option, and the subject of every sentence about the value. */
  public String option() {
    return "--" + name;
  }

  public Kind kind() {
    return kind;
  }

  /** The value's class; of a list, its elements' class. */
  public Class<?> type() {
    return type;
  }

  /** The default; null when there is none (see {@link #defaultText()}). */
  public T defaultValue() {
    return defaultValue;
  }

  public boolean hasDefault() {
    return defaultValue != null;
  }

  /**
   * The default as it is written ({@code 30s}, {@code 4}, {@code after-age}); for a setting without
   * one, what is used when it is not set ({@code random}).
   */
  public String defaultText() {
    return defaultText;
  }

  /** One line: what the setting does, without its default. */
  public String description() {
    return description;
  }

  /** {@code billing.concurrency}: the key in the {@code ORDINAL_CONFIG} file. */
  public String key(String command) {
    return command + "." + name;
  }

  /** {@code ORDINAL_BILLING_CONCURRENCY}: the environment variable. */
  public String variable(String command) {
    return variableOf(key(command));
  }

  /**
   * The variable of a key of the {@code ORDINAL_CONFIG} file: {@code billing.inbox-retention} is
   * {@code ORDINAL_BILLING_INBOX_RETENTION}, {@code db.url} is {@code ORDINAL_DB_URL}.
   */
  public static String variableOf(String key) {
    return PREFIX + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  // ---- reading and checking values ----

  /**
   * The value {@code text} writes: of a list, its comma-separated elements.
   *
   * @throws IllegalArgumentException one sentence: {@code 'soon' is not a duration; use e.g. 30s,
   *     2m or PT30S}
   */
  @SuppressWarnings("unchecked")
  public T parse(String text) {
    if (kind == Kind.LIST) {
      List<Object> values = new ArrayList<>();
      for (String part : text.split(",")) {
        if (!part.isBlank()) {
          values.add(parser.apply(part.trim()));
        }
      }
      return (T) List.copyOf(values);
    }
    return (T) parser.apply(text);
  }

  /**
   * One element of a list, or the value of any other setting, from its text (the command line
   * splits lists itself).
   *
   * @throws IllegalArgumentException as {@link #parse}
   */
  public Object parseElement(String text) {
    return parser.apply(text);
  }

  /** {@code value} as {@link #parse} reads it back. */
  public String format(T value) {
    return value == null ? defaultText : format.apply(value);
  }

  /**
   * What is wrong with {@code value}, as one sentence naming the option: {@code --concurrency must
   * be 1 to 256, not 0}; empty when it is good. Null is good only for a setting without a default.
   */
  public Optional<String> problem(T value) {
    if (value == null) {
      return hasDefault() ? Optional.of(option() + " must be set") : Optional.empty();
    }
    String p = check.problem(value);
    return p == null ? Optional.empty() : Optional.of(option() + " " + p);
  }

  @Override
  public String toString() {
    return option();
  }

  // ---- parsers ----

  private static Integer parseInt(String text) {
    try {
      return Integer.valueOf(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + text + "' is not a whole number");
    }
  }

  private static URI parseUri(String text) {
    try {
      return new URI(text.trim());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("'" + text + "' is not a URL");
    }
  }

  private static Boolean parseBoolean(String text) {
    String v = text.trim().toLowerCase(Locale.ROOT);
    if (v.equals("true") || v.equals("false")) {
      return Boolean.valueOf(v);
    }
    throw new IllegalArgumentException("'" + text + "' is not true or false");
  }

  private static <E extends Enum<E>> E parseChoice(Class<E> type, String text) {
    for (E e : type.getEnumConstants()) {
      if (choiceText(e).equals(text.trim())) {
        return e;
      }
    }
    throw new IllegalArgumentException(
        "'"
            + text
            + "' is not "
            + orList(Arrays.stream(type.getEnumConstants()).map(Setting::choiceText).toList()));
  }

  private static String choiceText(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  private static String orList(List<String> words) {
    if (words.size() == 1) {
      return words.get(0);
    }
    return String.join(", ", words.subList(0, words.size() - 1))
        + " or "
        + words.get(words.size() - 1);
  }

  private static java.util.stream.Collector<CharSequence, ?, String> joining() {
    return Collectors.joining(",");
  }
}
