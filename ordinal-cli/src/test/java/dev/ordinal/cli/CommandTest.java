package dev.ordinal.cli;

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
}
