package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The product's logback.xml, as a command starts with it: the file log survives a restart. */
class LogFileTest {

  /** One start of a command: a logger context configured from the shipped logback.xml. */
  private static void start(Path home, String message) throws Exception {
    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(new LogbackMDCAdapter());
    context.putProperty("ORDINAL_HOME", home.toString());
    context.putProperty("ORDINAL_LOG_NAME", "relay");
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    configurator.doConfigure(LogFileTest.class.getResource("/logback.xml"));
    context.getLogger("dev.ordinal.relay.OutboxRelay").info(message);
    context.stop();
  }

  @Test
  void aRestartAppendsToTheLogWithDatedZonedTimestamps(@TempDir Path home) throws Exception {
    start(home, "first start");
    start(home, "second start");

    List<String> lines = Files.readAllLines(home.resolve("logs/relay.log"));

    assertThat(lines).hasSize(2);
    assertThat(lines.get(0)).endsWith(" - first start");
    assertThat(lines.get(1)).endsWith(" - second start");
    assertThat(lines)
        .allMatch(
            l ->
                l.matches(
                    "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}(Z|[+-]\\d{2}:\\d{2}) .*"));
  }
}
