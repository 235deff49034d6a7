package dev.ordinal.lab.bench;

import dev.ordinal.lab.devstack.Stack;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.Supplier;
import picocli.CommandLine;

/**
 * A subcommand of {@code bench} that runs one scenario alone, on a stack of its own. Each one
 * declares its options ({@code --quick} and {@code --out} among them, worded for it) and turns them
 * into its settings; running, printing and writing the section is done here once.
 *
 * @param <S> the scenario's settings
 */
abstract class ScenarioCommand<S> implements Callable<Integer> {
  private final S full;
  private final S quick;
  private final Section<S> section;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** A command running {@code section} with {@code full}, or {@code quick} under --quick. */
  ScenarioCommand(S full, S quick, Section<S> section) {
    this.full = full;
    this.quick = quick;
    this.section = section;
  }

  /** A scenario's section on a started stack with settings {@code s}. */
  @FunctionalInterface
  interface Section<S> {
    List<String> run(Stack stack, S s, Consumer<String> progress) throws Exception;
  }

  /** Explicit options, else the --quick values, else the defaults; refused when out of range. */
  abstract S settings();

  /** Checks on options other than the settings, made after them; none unless a command has some. */
  void checkOthers() {}

  @Override
  public Integer call() throws Exception {
    S s = settings();
    checkOthers();
    return BenchRun.alone(
        spec, spec.name(), quick(), out(), (stack, q, p) -> section.run(stack, s, p));
  }

  /** Whether {@code --quick} was given (each command declares it, worded for itself). */
  boolean quick() {
    return spec.findOption("--quick").getValue();
  }

  /** The file {@code --out} names, or null (each command declares it or mixes it in). */
  Path out() {
    return spec.findOption("--out").getValue();
  }

  /** The settings before any other option: the --quick ones under --quick, else the full ones. */
  S defaults() {
    return quick() ? quick : full;
  }

  /** The settings {@code made} makes, the value it refuses named as an option in one sentence. */
  S named(Supplier<S> made) {
    try {
      return made.get();
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--" + e.getMessage());
    }
  }

  /** An option's value, else {@code otherwise}; refused in one sentence when out of range. */
  int pick(String name, Integer value, int otherwise, int min, int max) {
    return BenchRun.pick(spec, name, value, otherwise, min, max);
  }
}
