package dev.ordinal.testkit;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import picocli.CommandLine;

/**
 * Renders the help of a command and of every command below it, keeping what picocli wrote to stderr
 * meanwhile: picocli formats descriptions with String.format, and a lone '%' garbles the help with
 * a WARN there.
 */
public final class HelpRendering {
  private HelpRendering() {}

  /**
   * What was rendered.
   *
   * @param commands the qualified name of each command whose help was rendered
   * @param stderr what was written to {@code System.err} while rendering
   */
  public record Rendered(List<String> commands, String stderr) {}

  /** Renders the usage message of {@code root} and of each of its subcommands, at every depth. */
  public static Rendered everyCommand(CommandLine root) {
    ByteArrayOutputStream warnings = new ByteArrayOutputStream();
    PrintStream stderr = System.err;
    List<String> rendered = new ArrayList<>();
    System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8));
    try {
      Deque<CommandLine> todo = new ArrayDeque<>(List.of(root));
      while (!todo.isEmpty()) {
        CommandLine c = todo.pop();
        rendered.add(c.getCommandSpec().qualifiedName());
        c.getUsageMessage();
        todo.addAll(c.getSubcommands().values());
      }
    } finally {
      System.setErr(stderr);
    }
    return new Rendered(rendered, warnings.toString(StandardCharsets.UTF_8));
  }
}
