package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** One duration syntax for every duration option of every command. */
class DurationConverterTest {

  /** Every duration option of {@code root} and its subcommands, as "command option". */
  static List<String> durationOptionsWithout(CommandLine root, Class<?> converter) {
    List<String> others = new ArrayList<>();
    Deque<CommandLine> todo = new ArrayDeque<>(List.of(root));
    while (!todo.isEmpty()) {
      CommandLine c = todo.pop();
      for (OptionSpec o : c.getCommandSpec().options()) {
        if (o.type() == Duration.class
            && Arrays.stream(o.converters()).noneMatch(converter::isInstance)) {
          others.add(c.getCommandSpec().qualifiedName() + " " + o.longestName());
        }
      }
      todo.addAll(c.getSubcommands().values());
    }
    return others;
  }

  @Test
  void everyDurationOptionOfEveryCommandTakesBothForms() {
    CommandLine cli = Main.commandLine(Map.of());
    assertThat(durationOptionsWithout(cli, DurationConverter.class)).isEmpty();
  }

  @Test
  void theShortFormAndIso8601AreOneDuration() {
    DurationConverter c = new DurationConverter();
    assertThat(c.convert("30s")).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.convert("PT30S")).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.convert("7d")).isEqualTo(Duration.ofDays(7));
  }

  @Test
  void aValueThatIsNotADurationIsOneSentenceNamingTheOption() {
    StringWriter err = new StringWriter();
    CommandLine cli = Main.commandLine(Map.of());
    cli.setErr(new PrintWriter(err));
    assertThat(cli.execute("billing", "--issuer-lease", "soon")).isEqualTo(2);
    assertThat(err.toString().lines().findFirst().orElse(""))
        .isEqualTo(
            "Invalid value for option '--issuer-lease': 'soon' is not a duration; use e.g. 30s,"
                + " 2m or PT30S");
  }
}
