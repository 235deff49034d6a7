package dev.ordinal.lab.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

class UpCommandTest {

  @ParameterizedTest
  @ValueSource(strings = {"ORDINAL_DB_URL", "ORDINAL_KAFKA_BOOTSTRAP"})
  void externalServersAreRefusedInOneSentenceAndNothingIsStarted(String setting, @TempDir Path home)
      throws Exception {
    UpCommand command = new UpCommand();
    command.env =
        Map.of(
            setting,
            setting.equals("ORDINAL_DB_URL")
                ? "jdbc:postgresql://db.example:5432/app"
                : "kafka.example:9092",
            "ORDINAL_HOME",
            home.toString());
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = new CommandLine(command);
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));

    assertThat(cli.execute()).isEqualTo(2);

    assertThat(err.toString().lines().toList())
        .containsExactly(
            "ordinal: up runs only on the embedded stack, and "
                + setting
                + " is set: unset it, or run each service with its own command (order-service,"
                + " relay, billing) against those servers.");
    assertThat(out.toString()).isEmpty();
    try (var files = Files.list(home)) {
      assertThat(files).as("nothing written under ORDINAL_HOME").isEmpty();
    }
  }
}
