package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** A test of commands: what they print to stdout and stderr, and a run of one. */
abstract class CommandTest {
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  /** {@code cli}, printing to {@link #out} and {@link #err}. */
  CommandLine printingHere(CommandLine cli) {
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    return cli;
  }

  /** Runs {@code command} with {@code args}, printing here; its exit status. */
  int execute(Object command, String... args) {
    return printingHere(new CommandLine(command)).execute(args);
  }

  /** Forgets what was printed so far, before the next run. */
  void clear() {
    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
  }

  /** The refusal on stderr: exactly one line, no stack trace. */
  String refusal() {
    assertThat(err.toString()).doesNotContain("Exception").doesNotContain("\tat ");
    assertThat(err.toString().lines()).hasSize(1);
    return err.toString().strip();
  }
}
