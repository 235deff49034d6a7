package dev.ordinal.lab.bench;

import dev.ordinal.lab.devstack.Stack;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * One benchmark scenario of {@code ./ordinal bench}: a name and a function that measures on a
 * started stack and returns its Markdown section. {@code bench} with no subcommand runs a list of
 * these on one stack; each subcommand runs its own alone.
 *
 * @param name the subcommand's name, also what {@code --only} takes
 * @param runner measures and returns the section (a {@code ## ...} heading first)
 */
public record Scenario(String name, Runner runner) {
  private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]{0,31}");

  public Scenario {
    Objects.requireNonNull(runner, "runner");
    if (name == null || !NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "A scenario name is 1 to 32 lower-case letters, digits or dashes, not " + name);
    }
  }

  /** Measures on {@code stack}; {@code progress} gets one line per step. */
  @FunctionalInterface
  public interface Runner {
    List<String> run(Stack stack, boolean quick, Consumer<String> progress) throws Exception;
  }
}
