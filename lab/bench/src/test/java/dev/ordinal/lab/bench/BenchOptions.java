package dev.ordinal.lab.bench;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import picocli.CommandLine;

/** A bench command's options in a test: parsed, and refused in one sentence. */
final class BenchOptions {
  private BenchOptions() {}

  /** {@code command} with {@code args} parsed into its options. */
  static <T> T parsed(T command, String... args) {
    new CommandLine(command).parseArgs(args);
    return command;
  }

  /** {@code settings} refuses the options with {@code sentence}, naming the option. */
  static void assertRefused(ThrowingCallable settings, String sentence) {
    assertThatThrownBy(settings)
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessage(sentence);
  }
}
