package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordinal.testkit.JavaCommand;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./ordinal order-service} as a container runs it: a JVM of its own with the shipped
 * logback.xml, no terminal, {@code ORDINAL_LOG_FORMAT=json}, stopped by SIGTERM.
 */
@ExtendWith(OrdinalStackExtension.class)
class JsonLogIT {

  @Test
  void aServiceWithoutATerminalWritesOnlyJsonLinesNamingItOnStdoutAndNoFile(
      TestNamespace ns, @TempDir Path home) throws Exception {
    Path output = home.resolve("output.txt");
    List<String> command =
        JavaCommand.of(
            List.of(
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xmx256m",
                // the test classpath has logback-test.xml: name the shipped file
                "-Dlogback.configurationFile=" + LogFileTest.class.getResource("/logback.xml")),
            Main.class,
            "order-service",
            "--auth",
            "none",
            "--schema",
            ns.schema("json_log"),
            "--port",
            "0",
            "--management-port",
            Integer.toString(freePort()));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(ns.serverEnvironment());
    builder.environment().put("ORDINAL_HOME", home.toString());
    builder.environment().put("ORDINAL_LOG_FORMAT", "json");
    builder.environment().remove("ORDINAL_LOG_TARGET");
    builder.environment().remove("ORDINAL_LOG_NAME");
    // stdout and stderr both: the whole output
    builder.redirectErrorStream(true).redirectOutput(output.toFile());
    Process service = builder.start();
    try {
      await()
          .atMost(Duration.ofSeconds(120))
          .until(() -> !service.isAlive() || Files.readString(output).contains("Ctrl-C stops it"));
      assertThat(service.isAlive()).as(Files.readString(output)).isTrue();
      service.destroy(); // SIGTERM, as a container runtime stops it
      assertThat(service.waitFor(60, TimeUnit.SECONDS)).isTrue();
    } finally {
      service.destroyForcibly();
    }

    List<String> lines = Files.readAllLines(output);
    ObjectMapper json = new ObjectMapper();
    List<String> messages = new ArrayList<>();
    for (String line : lines) {
      JsonNode o = json.readTree(line);
      assertThat(o.isObject()).as(line).isTrue();
      assertThat(o.path("timestamp").asText()).as(line).matches(LogFileTest.ZONED_TIMESTAMP);
      assertThat(o.path("service").asText()).as(line).isEqualTo("order-service");
      assertThat(o.path("level").asText()).as(line).isIn("INFO", "WARN", "ERROR");
      assertThat(o.path("logger").asText()).as(line).isNotEmpty();
      assertThat(o.path("thread").asText()).as(line).isNotEmpty();
      messages.add(o.path("message").asText());
    }
    assertThat(messages)
        .anyMatch(m -> m.startsWith("order-service started"))
        .anyMatch(m -> m.startsWith("order-service listening on "))
        .anyMatch(m -> m.endsWith("Ctrl-C stops it."))
        .contains("order-service stopping: finishing the work in hand", "order-service stopped");
    // the log went to stdout alone: no file was written
    assertThat(home.resolve("logs")).doesNotExist();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
