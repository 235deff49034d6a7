package dev.ordinal.cli;

import picocli.CommandLine;

/** A command that only groups subcommands: run alone, it prints its usage. */
abstract class CommandGroup implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }
}
