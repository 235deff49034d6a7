package dev.ordinal.runtime.settings;

import java.time.Duration;
import java.util.regex.Pattern;

/**
 * What a {@link Setting}'s value must be. A check answers null for a good value, or the rest of the
 * sentence whose subject is the option: {@code "must be 1 to 256, not 0"} becomes {@code
 * "--concurrency must be 1 to 256, not 0"}.
 *
 * @param <T> the setting's type
 */
@FunctionalInterface
public interface Check<T> {
  /** Null when {@code value} is good; otherwise what is wrong, starting with a verb. */
  String problem(T value);

  /** This check, then {@code next} on a value this one accepted. */
  default Check<T> and(Check<T> next) {
    return v -> {
      String p = problem(v);
      return p != null ? p : next.problem(v);
    };
  }

  /** Any value. */
  static <T> Check<T> any() {
    return v -> null;
  }

  /** {@code min} to {@code max}, both included. */
  static Check<Integer> range(int min, int max) {
    return v -> v < min || v > max ? "must be " + min + " to " + max + ", not " + v : null;
  }

  /** Longer than zero. */
  static Check<Duration> positive() {
    return v -> v.isNegative() || v.isZero() ? "must be positive, not " + v : null;
  }

  /** Zero or longer. */
  static Check<Duration> notNegative() {
    return v -> v.isNegative() ? "must not be negative, not " + v : null;
  }

  /**
   * {@code min} to {@code max}, both included; {@code range} says so in words ("6 s to 30 min").
   */
  static Check<Duration> between(Duration min, Duration max, String range) {
    return v ->
        v.compareTo(min) < 0 || v.compareTo(max) > 0 ? "must be " + range + ", not " + v : null;
  }

  /** Not empty and not only spaces. */
  static Check<String> notBlank() {
    return v -> v.isBlank() ? "must not be empty" : null;
  }

  /** The whole value matches {@code regex}; {@code what} says in words what that is. */
  static Check<String> matches(String regex, String what) {
    Pattern p = Pattern.compile(regex);
    return v -> p.matcher(v).matches() ? null : "must be " + what + ", not " + v;
  }
}
