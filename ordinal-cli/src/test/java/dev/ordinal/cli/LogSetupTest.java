package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ordinal.runtime.LogSetup;
import dev.ordinal.runtime.LogSetup.Decision;
import dev.ordinal.runtime.LogSetup.Format;
import dev.ordinal.runtime.LogSetup.Target;
import dev.ordinal.testkit.JavaCommand;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where each command logs, from its arguments, the environment and whether it has a terminal. */
class LogSetupTest {

  private static Decision decide(String command, Map<String, String> env, boolean terminal) {
    String[] args = command.split(" ");
    return LogSetup.decide(Main.commandName(args), Main.isService(args), env, terminal);
  }

  private static Target target(String command, String setting, boolean terminal) {
    return decide(command, Map.of("ORDINAL_LOG_TARGET", setting), terminal).target();
  }

  private static Format format(String command, String setting) {
    return decide(command, Map.of("ORDINAL_LOG_FORMAT", setting), false).format();
  }

  @Test
  void aServiceWithoutATerminalLogsEveryLineToStdoutAndNoFile() {
    for (String service : new String[] {"order-service", "relay", "billing", "monitor"}) {
      Decision d = decide(service + " --management-port 0", Map.of(), false);

      assertThat(d.service()).as(service).isTrue();
      assertThat(d.target()).as(service).isEqualTo(Target.CONSOLE);
      assertThat(d.consoleStream()).as(service).isEqualTo("System.out");
      assertThat(d.writesFile()).as(service).isFalse();
      assertThat(d.format()).as(service).isEqualTo(Format.TEXT);
    }
  }

  @Test
  void aServiceOnATerminalLogsToItsFileWithErrorsOnTheConsole() {
    Decision d = decide("billing", Map.of(), true);

    assertThat(d.target()).isEqualTo(Target.FILE);
    assertThat(d.writesFile()).isTrue();
    assertThat(d.name()).isEqualTo("billing");
  }

  @Test
  void commandsThatPrintResultsKeepStdoutForThemWithOrWithoutATerminal() {
    for (String command :
        new String[] {
          "lag",
          "replay --topic t",
          "audit",
          "invoices reconcile",
          "relay setup-sql",
          "relay --schema orders republish --from 1",
          "billing --help",
          "relay -V",
          "help billing",
          "--version"
        }) {
      for (boolean terminal : new boolean[] {true, false}) {
        Decision d = decide(command, Map.of(), terminal);

        assertThat(d.service()).as(command).isFalse();
        assertThat(d.target()).as(command).isEqualTo(Target.FILE);
        assertThat(d.consoleStream()).as(command).isEqualTo("System.err");
      }
    }
  }

  @Test
  void theTargetSettingWinsAndAnOperatorCommandsConsoleIsStderr() {
    assertThat(target("billing", "file", false)).isEqualTo(Target.FILE);
    assertThat(target("billing", "both", true)).isEqualTo(Target.BOTH);
    Decision lag = decide("lag", Map.of("ORDINAL_LOG_TARGET", "Console"), false);
    assertThat(lag.target()).isEqualTo(Target.CONSOLE);
    assertThat(lag.consoleStream()).isEqualTo("System.err");
  }

  @Test
  void jsonIsAskedForByTheFormatSetting() {
    assertThat(format("relay", "json")).isEqualTo(Format.JSON);
    assertThat(format("relay", "text")).isEqualTo(Format.TEXT);
  }

  @Test
  void aGivenLogNameIsUsedAsItIsAndNoneIsTheCommandsName() {
    Decision given = decide("billing", Map.of("ORDINAL_LOG_NAME", "billing-a"), true);
    assertThat(given.name()).isEqualTo("billing-a");
    assertThat(given.claimName()).isFalse();

    Decision none = decide("billing", Map.of(), true);
    assertThat(none.name()).isEqualTo("billing");
    assertThat(none.claimName()).isTrue();
    assertThat(decide("--help", Map.of(), true).name()).isEqualTo("ordinal");
  }

  @Test
  void aSettingWithNoMeaningIsRefusedInOneSentenceNamingIt() {
    assertThatThrownBy(() -> decide("billing", Map.of("ORDINAL_LOG_TARGET", "stdout2"), false))
        .isInstanceOf(LogSetup.BadSettingException.class)
        .hasMessage("ORDINAL_LOG_TARGET must be console, file or both, not 'stdout2'.");
    assertThatThrownBy(() -> decide("billing", Map.of("ORDINAL_LOG_FORMAT", "xml"), false))
        .hasMessage("ORDINAL_LOG_FORMAT must be text or json, not 'xml'.");
    assertThatThrownBy(() -> decide("billing", Map.of("ORDINAL_LOG_NAME", "../x"), false))
        .hasMessage(
            "ORDINAL_LOG_NAME must be a file name of letters, digits, '.', '_' and '-', not"
                + " '../x'.");
  }

  /** The command as it starts: one sentence on stderr, exit 2, no log written, nothing run. */
  @Test
  void aBadSettingEndsTheCommandWithExitStatus2BeforeAnythingIsWritten(@TempDir Path home)
      throws Exception {
    Process command = command(home, Map.of("ORDINAL_LOG_TARGET", "stdout"), "billing");
    String output = new String(command.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

    assertThat(command.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(command.exitValue()).isEqualTo(2);
    assertThat(output)
        .isEqualTo(
            "ordinal: ORDINAL_LOG_TARGET must be console, file or both, not 'stdout'."
                + System.lineSeparator());
    assertThat(home.resolve("logs")).doesNotExist();
  }

  /**
   * While this JVM holds "billing", a billing process started meanwhile writes billing-2.log; once
   * it has exited, its name is free again, as it is for a restart.
   */
  @Test
  void aProcessStartedMeanwhileGetsTheNextNameAndItIsFreeAgainOnceItExits(@TempDir Path home)
      throws Exception {
    Path logs = home.resolve("logs");
    assertThat(LogSetup.claim(logs, "billing")).isEqualTo("billing");

    // no servers set: it refuses at once, after logging was set up
    Process billing = command(home, Map.of("ORDINAL_LOG_TARGET", "file"), "billing");
    billing.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
    assertThat(billing.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(billing.exitValue()).isEqualTo(2);

    // it held billing-2 (billing was taken) and logged there until it exited
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(logs)) {
      assertThat(files.map(f -> f.getFileName().toString()))
          .containsExactlyInAnyOrder("billing.lock", "billing-2.lock", "billing-2.log");
    }
    assertThat(LogSetup.claim(logs, "billing")).isEqualTo("billing-2");
  }

  /** {@code ./ordinal <args>} in a JVM of its own, with no ORDINAL_ variable but {@code env}. */
  private static Process command(Path home, Map<String, String> env, String... args)
      throws java.io.IOException {
    ProcessBuilder builder =
        new ProcessBuilder(
            JavaCommand.of(
                java.util.List.of(
                    "-XX:TieredStopAtLevel=1",
                    // the test classpath has logback-test.xml: name the shipped file
                    "-Dlogback.configurationFile="
                        + LogSetupTest.class.getResource("/logback.xml")),
                Main.class,
                args));
    builder.environment().keySet().removeIf(k -> k.startsWith("ORDINAL_"));
    builder.environment().put("ORDINAL_HOME", home.toString());
    builder.environment().putAll(env);
    builder.redirectErrorStream(true);
    return builder.start();
  }

  @Test
  void twoProcessesOfOneCommandRunningAtOnceGetAFileEach(@TempDir Path logs) {
    // the first holds "billing" until it exits; the next ones running meanwhile get -2, -3
    assertThat(LogSetup.claim(logs, "billing")).isEqualTo("billing");
    assertThat(LogSetup.claim(logs, "billing")).isEqualTo("billing-2");
    assertThat(LogSetup.claim(logs, "billing")).isEqualTo("billing-3");
    assertThat(LogSetup.claim(logs, "relay")).isEqualTo("relay");
  }

  @Test
  void theLogDirectoryIsUnderOrdinalHome() {
    assertThat(LogSetup.logDirectory(Map.of("ORDINAL_HOME", "/srv/ordinal")))
        .isEqualTo(Path.of("/srv/ordinal/logs"));
    assertThat(LogSetup.logDirectory(Map.of()))
        .isEqualTo(Path.of(System.getProperty("user.home"), ".ordinal", "logs"));
  }
}
