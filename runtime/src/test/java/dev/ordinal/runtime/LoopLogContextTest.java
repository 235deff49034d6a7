package dev.ordinal.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/** Every line a loop's thread logs names the loop, and the instance when the service has one. */
class LoopLogContextTest {
  private static final String LOOP_LOGGER = "dev.ordinal.test.Loops";

  @Test
  void eachLoopsLinesNameTheLoopAndTheInstanceAlsoAfterARestart() throws Exception {
    List<ILoggingEvent> lines =
        linesOf(
            new Supervisor("billing", "billing-a", registry(), ms(5), ms(20), Clock.systemUTC()));

    assertThat(lines)
        .extracting(ILoggingEvent::getFormattedMessage, e -> e.getMDCPropertyMap())
        .contains(
            org.assertj.core.groups.Tuple.tuple(
                "pass 1",
                Map.of(LogContext.LOOP, "inbox-consumer", LogContext.INSTANCE, "billing-a")),
            org.assertj.core.groups.Tuple.tuple(
                "pass 2",
                Map.of(LogContext.LOOP, "inbox-consumer", LogContext.INSTANCE, "billing-a")),
            org.assertj.core.groups.Tuple.tuple(
                "issuing",
                Map.of(LogContext.LOOP, "invoice-issuer", LogContext.INSTANCE, "billing-a")));
    // the supervisor's own line about the failure is logged on the loop's thread too
    assertThat(lines)
        .filteredOn(
            e -> e.getFormattedMessage().startsWith("Loop inbox-consumer of billing failed"))
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.getMDCPropertyMap())
                    .containsEntry(LogContext.LOOP, "inbox-consumer")
                    .containsEntry(LogContext.INSTANCE, "billing-a"));
    assertThat(MDC.get(LogContext.LOOP)).as("the caller's thread is left alone").isNull();
  }

  @Test
  void aServiceWithoutAnInstanceNamesTheLoopAlone() throws Exception {
    List<ILoggingEvent> lines =
        linesOf(new Supervisor("relay", registry(), ms(5), ms(20), Clock.systemUTC()));

    assertThat(lines)
        .filteredOn(e -> e.getFormattedMessage().equals("issuing"))
        .singleElement()
        .satisfies(
            e ->
                assertThat(e.getMDCPropertyMap())
                    .isEqualTo(Map.of(LogContext.LOOP, "invoice-issuer")));
  }

  /**
   * What two loops of {@code supervisor} log: inbox-consumer logs "pass n" and fails on its first
   * pass, invoice-issuer logs "issuing"; both then wait until stopped.
   */
  private static List<ILoggingEvent> linesOf(Supervisor supervisor) throws Exception {
    org.slf4j.Logger log = LoggerFactory.getLogger(LOOP_LOGGER);
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    Logger loops = (Logger) LoggerFactory.getLogger(LOOP_LOGGER);
    Logger supervisorLog = (Logger) LoggerFactory.getLogger(Supervisor.class);
    loops.addAppender(lines);
    supervisorLog.addAppender(lines);
    AtomicInteger passes = new AtomicInteger();
    try (supervisor) {
      supervisor.start(
          "inbox-consumer",
          ctx -> {
            log.info("pass {}", passes.incrementAndGet());
            if (passes.get() == 1) {
              throw new IllegalStateException("first pass");
            }
            idle(ctx);
          });
      supervisor.start(
          "invoice-issuer",
          ctx -> {
            log.info("issuing");
            idle(ctx);
          });
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  lines.list.stream().filter(e -> e.getLoggerName().equals(LOOP_LOGGER)).count()
                      == 3);
    } finally {
      loops.detachAppender(lines);
      supervisorLog.detachAppender(lines);
    }
    return List.copyOf(lines.list);
  }

  private static void idle(LoopContext ctx) {
    ctx.healthy();
    while (ctx.running()) {
      ctx.await(Duration.ofSeconds(1));
    }
  }

  private static SimpleMeterRegistry registry() {
    return new SimpleMeterRegistry();
  }

  private static Duration ms(long millis) {
    return Duration.ofMillis(millis);
  }
}
