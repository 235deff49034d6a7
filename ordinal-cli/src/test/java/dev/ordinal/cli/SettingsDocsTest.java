package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.ordinal.billing.BillingSettings;
import dev.ordinal.runtime.settings.Setting;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * docs/OPERATIONS.md has one table per service command, checked here against the settings the
 * command's options are derived from: option, variable, file key, default and description. A row
 * that differs fails naming it, with the row the code gives.
 */
class SettingsDocsTest {
  static final String HEADER = "| option | variable | file key | default | description |";

  /** Each service command's settings, from the command line itself. */
  static Map<String, List<Setting<?>>> serviceCommands() {
    Map<String, List<Setting<?>>> commands = new LinkedHashMap<>();
    Main.commandLine(Map.of())
        .getSubcommands()
        .forEach(
            (name, cli) -> {
              if (cli.getCommandSpec().modelTransformer() instanceof SettingOptions options) {
                commands.put(name, options.settings());
              }
            });
    return commands;
  }

  /**
   * The row of {@code setting} in {@code command}'s table: a default value in code, what happens
   * without one ("random") in words.
   */
  static String row(String command, Setting<?> setting) {
    return "| `"
        + setting.option()
        + "` | `"
        + setting.variable(command)
        + "` | `"
        + setting.key(command)
        + "` | "
        + (SettingOptions.hasDefaultValue(setting)
            ? "`" + setting.defaultText() + "`"
            : markdown(setting.defaultText()))
        + " | "
        + markdown(setting.description())
        + " |";
  }

  /** {@code text} in a table cell: '|' escaped, {@code <prefix>} not taken for a tag. */
  static String markdown(String text) {
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;");
  }

  /** The heading above {@code command}'s table. */
  static String heading(String command) {
    return "### `./ordinal " + command + "`";
  }

  /** {@code command}'s table as the code gives it. */
  static List<String> table(String command, List<Setting<?>> settings) {
    List<String> lines = new ArrayList<>(List.of(HEADER, "|---|---|---|---|---|"));
    settings.forEach(s -> lines.add(row(command, s)));
    return lines;
  }

  static List<String> operations() throws IOException {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve("docs/OPERATIONS.md"))) {
      dir = dir.getParent();
    }
    assertThat(dir).as("docs/OPERATIONS.md above " + Path.of("").toAbsolutePath()).isNotNull();
    return Files.readAllLines(dir.resolve("docs/OPERATIONS.md"));
  }

  /** The rows of the table under {@code heading}, by option; empty when there is no such table. */
  static Map<String, String> documented(List<String> doc, String heading) {
    Map<String, String> rows = new LinkedHashMap<>();
    int at = doc.indexOf(heading);
    if (at < 0) {
      return rows;
    }
    int i = at + 1;
    while (i < doc.size() && !doc.get(i).startsWith("|")) {
      i++;
    }
    if (i >= doc.size() || !doc.get(i).equals(HEADER)) {
      return rows;
    }
    for (i += 2; i < doc.size() && doc.get(i).startsWith("|"); i++) {
      String line = doc.get(i);
      String option = line.split("\\|")[1].trim().replace("`", "");
      rows.put(option, line);
    }
    return rows;
  }

  @Test
  void everyServiceCommandHasItsSettings() {
    assertThat(serviceCommands())
        .containsOnlyKeys("order-service", "relay", "billing", "monitor", "console");
  }

  /** Each way {@code doc}'s tables differ from the code, one sentence naming the row. */
  static List<String> problems(List<String> doc) {
    List<String> problems = new ArrayList<>();
    serviceCommands()
        .forEach(
            (command, settings) -> {
              Map<String, String> rows = documented(doc, heading(command));
              if (rows.isEmpty()) {
                problems.add(
                    "docs/OPERATIONS.md has no table of "
                        + command
                        + "; under \""
                        + heading(command)
                        + "\" it should be:\n"
                        + String.join("\n", table(command, settings)));
                return;
              }
              for (Setting<?> s : settings) {
                String expected = row(command, s);
                String actual = rows.remove(s.option());
                if (actual == null) {
                  problems.add(command + " table: no row for " + s.option() + "; add " + expected);
                } else if (!actual.equals(expected)) {
                  problems.add(
                      command
                          + " table, row "
                          + s.option()
                          + " differs:\n  docs: "
                          + actual
                          + "\n  code: "
                          + expected);
                }
              }
              rows.keySet()
                  .forEach(
                      option ->
                          problems.add(
                              command + " table, row " + option + ": no such setting; remove it"));
            });
    return problems;
  }

  @Test
  void operationsHasATablePerServiceCommandEqualToItsSettings() throws IOException {
    List<String> problems = problems(operations());
    if (!problems.isEmpty()) {
      fail(String.join("\n", problems));
    }
  }

  @Test
  void aRowThatDiffersFromTheCodeIsNamed() throws IOException {
    List<String> doc = new ArrayList<>(operations());
    String row = row("billing", BillingSettings.CONCURRENCY);
    int at = doc.indexOf(row);
    assertThat(at).as("the docs' row of billing --concurrency").isNotNegative();
    doc.set(at, row.replace("| `4` |", "| `8` |"));
    doc.add(at + 1, "| `--concurency` | | | | |");
    assertThat(problems(doc))
        .containsExactly(
            "billing table, row --concurrency differs:\n  docs: "
                + row.replace("| `4` |", "| `8` |")
                + "\n  code: "
                + row,
            "billing table, row --concurency: no such setting; remove it");
  }

  @Test
  void helpShowsEachSettingsDescriptionAndDefault() {
    CommandLine billing = Main.commandLine(Map.of()).getSubcommands().get("billing");
    // picocli wraps the lines wherever it likes
    String help = billing.getUsageMessage(CommandLine.Help.Ansi.OFF).replaceAll("\\s+", "");
    for (Setting<?> s : serviceCommands().get("billing")) {
      String text = SettingOptions.help(s).replace("${DEFAULT-VALUE}", s.defaultText());
      assertThat(help).as(s.option()).contains(text.replace("%%", "%").replaceAll("\\s+", ""));
    }
  }
}
