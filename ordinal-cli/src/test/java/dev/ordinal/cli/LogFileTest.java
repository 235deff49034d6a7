package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.status.Status;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The product's logback.xml, as a command starts with it. */
class LogFileTest {
  static final String ZONED_TIMESTAMP =
      "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}(Z|[+-]\\d{2}:\\d{2})";

  /** A logger context configured from the shipped logback.xml with {@code properties}. */
  private static LoggerContext configured(Map<String, String> properties) throws Exception {
    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(new LogbackMDCAdapter());
    properties.forEach(context::putProperty);
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    configurator.doConfigure(LogFileTest.class.getResource("/logback.xml"));
    return context;
  }

  /** One start of a command, as before LogSetup existed: ORDINAL_HOME and ORDINAL_LOG_NAME. */
  private static void start(Path home, String message) throws Exception {
    LoggerContext context =
        configured(Map.of("ORDINAL_HOME", home.toString(), "ORDINAL_LOG_NAME", "relay"));
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
    assertThat(lines).allMatch(l -> l.matches(ZONED_TIMESTAMP + " .*"));
  }

  /** A text line of a traced piece of work names its trace id; a line of none names nothing. */
  @Test
  void aTextLineCarriesTheTraceIdOfItsWork(@TempDir Path dir) throws Exception {
    LoggerContext context =
        configured(
            Map.of(
                "ordinal.log.dir", dir.toString(),
                "ordinal.log.name", "order-service",
                "ordinal.log.target", "file",
                "ordinal.log.format", "text"));
    Logger logger = context.getLogger("dev.ordinal.order.OrderHttpServer");
    context.getMDCAdapter().put("trace_id", "4bf92f3577b34da6a3ce929d0e0e4736");
    logger.info("Order 1 placed");
    context.getMDCAdapter().clear();
    logger.info("listening");
    context.stop();

    List<String> lines = Files.readAllLines(dir.resolve("order-service.log"));
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0))
        .endsWith(" trace_id=4bf92f3577b34da6a3ce929d0e0e4736 - Order 1 placed");
    assertThat(lines.get(1)).endsWith("OrderHttpServer - listening").doesNotContain("trace_id");
  }

  /**
   * Each target and format LogSetup may hand over configures without a warning (logback would print
   * its status on stdout) and attaches exactly the appenders it names; no target at all is the file
   * with errors on stderr.
   */
  @Test
  void everyTargetAndFormatConfiguresWithoutAWarningAndWithItsAppenders(@TempDir Path dir)
      throws Exception {
    Map<String, List<String>> appenders =
        Map.of(
            "console", List.of("CONSOLE"),
            "file", List.of("ERRORS", "FILE"),
            "both", List.of("CONSOLE", "FILE"),
            "", List.of("ERRORS", "FILE"));
    for (String target : appenders.keySet()) {
      for (String format : List.of("text", "json")) {
        Map<String, String> properties =
            target.isEmpty()
                ? Map.of("ordinal.log.dir", dir.toString(), "ordinal.log.format", format)
                : Map.of(
                    "ordinal.log.dir", dir.toString(),
                    "ordinal.log.target", target,
                    "ordinal.log.format", format);
        LoggerContext context = configured(properties);
        List<Status> statuses = context.getStatusManager().getCopyOfStatusList();

        assertThat(statuses)
            .as(target + " " + format + ": " + statuses)
            .allMatch(s -> s.getEffectiveLevel() < Status.WARN);
        assertThat(appenderNames(context.getLogger(Logger.ROOT_LOGGER_NAME)))
            .as(target + " " + format)
            .containsExactlyElementsOf(appenders.get(target));
        context.stop();
      }
    }
  }

  /**
   * A lab main class runs without LogSetup: the variables are read as they are, and its console is
   * stderr (its stdout is its output).
   */
  @Test
  void withoutLogSetupTheVariablesAreReadAsTheyAreWithTheConsoleOnStderr(@TempDir Path dir)
      throws Exception {
    LoggerContext context =
        configured(
            Map.of(
                "ORDINAL_HOME", dir.toString(),
                "ORDINAL_LOG_TARGET", "console",
                "ORDINAL_LOG_FORMAT", "json"));
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);

    assertThat(context.getStatusManager().getCopyOfStatusList())
        .allMatch(s -> s.getEffectiveLevel() < Status.WARN);
    assertThat(appenderNames(root)).containsExactly("CONSOLE");
    ch.qos.logback.core.ConsoleAppender<?> console =
        (ch.qos.logback.core.ConsoleAppender<?>) root.getAppender("CONSOLE");
    assertThat(console.getTarget()).isEqualTo("System.err");
    assertThat(console.getEncoder().getClass().getName())
        .isEqualTo("net.logstash.logback.encoder.LogstashEncoder");
    context.stop();
    assertThat(dir.resolve("logs")).doesNotExist();
  }

  /**
   * JSON lines: one object a line with flat fields: a dated, zoned timestamp, level, logger,
   * thread, message, the command as service, the MDC's fields, and an exception's stack trace.
   */
  @Test
  void aJsonLogHasOneFlatObjectALineWithTheContextsFields(@TempDir Path dir) throws Exception {
    LoggerContext context =
        configured(
            Map.of(
                "ordinal.log.dir", dir.toString(),
                "ordinal.log.name", "billing",
                "ordinal.log.target", "file",
                "ordinal.log.format", "json",
                "ordinal.log.service", "billing"));
    Logger logger = context.getLogger("dev.ordinal.billing.BillingApp");
    context.getMDCAdapter().put("loop", "inbox-consumer");
    context.getMDCAdapter().put("message_id", "m-1");
    logger.info("applied {}", "m-1");
    context.getMDCAdapter().clear();
    logger.warn("failed\nover two lines", new IllegalStateException("boom"));
    context.stop();

    List<String> lines = Files.readAllLines(dir.resolve("billing.log"));
    ObjectMapper json = new ObjectMapper();
    List<JsonNode> objects = new ArrayList<>();
    for (String line : lines) {
      objects.add(json.readTree(line));
    }

    assertThat(objects).hasSize(2);
    for (JsonNode o : objects) {
      assertThat(o.path("timestamp").asText()).matches(ZONED_TIMESTAMP);
      assertThat(o.path("logger").asText()).isEqualTo("dev.ordinal.billing.BillingApp");
      assertThat(o.path("thread").asText()).isEqualTo(Thread.currentThread().getName());
      assertThat(o.path("service").asText()).isEqualTo("billing");
      assertThat(o.path("@version").isMissingNode()).isTrue();
      Iterator<JsonNode> values = o.elements();
      values.forEachRemaining(v -> assertThat(v.isValueNode()).as(o.toString()).isTrue());
    }
    assertThat(objects.get(0).path("level").asText()).isEqualTo("INFO");
    assertThat(objects.get(0).path("message").asText()).isEqualTo("applied m-1");
    assertThat(objects.get(0).path("loop").asText()).isEqualTo("inbox-consumer");
    assertThat(objects.get(0).path("message_id").asText()).isEqualTo("m-1");
    assertThat(objects.get(1).path("level").asText()).isEqualTo("WARN");
    assertThat(objects.get(1).path("message").asText()).isEqualTo("failed\nover two lines");
    assertThat(objects.get(1).path("loop").isMissingNode()).isTrue();
    assertThat(objects.get(1).path("exception").asText())
        .startsWith("java.lang.IllegalStateException: boom");
  }

  private static List<String> appenderNames(Logger logger) {
    List<String> names = new ArrayList<>();
    for (Iterator<Appender<ch.qos.logback.classic.spi.ILoggingEvent>> it =
            logger.iteratorForAppenders();
        it.hasNext(); ) {
      names.add(it.next().getName());
    }
    names.sort(String::compareTo);
    return names;
  }
}
