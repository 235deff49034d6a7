package dev.ordinal.lab.bench;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The {@code --out} option the scenario subcommands share, as picocli mixins: worded for a scenario
 * that prints results, or for one that prints a table. {@link ScenarioCommand} reads it.
 */
final class MarkdownOut {
  private MarkdownOut() {}

  /** {@code --out} of a scenario whose section is its results. */
  static final class Results {
    @Option(names = "--out", description = "Also write the results as Markdown to this file.")
    Path out;
  }

  /** {@code --out} of a scenario whose section is a table. */
  static final class Table {
    @Option(names = "--out", description = "Also write the table as Markdown to this file.")
    Path out;
  }
}
