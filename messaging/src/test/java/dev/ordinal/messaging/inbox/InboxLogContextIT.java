package dev.ordinal.messaging.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.ordinal.messaging.db.Migrations;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.runtime.LogContext;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestKafka;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

/**
 * The lines logged while an inbox record is applied, the handler's and the inbox's own, carry the
 * record's message id and the trace id of its {@code traceparent} header (real PostgreSQL, real
 * broker); the next record's lines carry none of them.
 */
@ExtendWith(OrdinalStackExtension.class)
class InboxLogContextIT {
  static final String TRACE_A = "0af7651916cd43dd8448eb211c80319c";
  static final String TRACE_B = "4bf92f3577b34da6a3ce929d0e0e4736";

  @Test
  void eachRecordsLinesCarryItsMessageIdAndTraceIdAndNothingOfTheRecordBefore(TestNamespace ns)
      throws Exception {
    Migrations.applyInbox(ns.dataSource(), ns.schema());
    String topic = ns.topic("log-context");
    Topics.ensure(ns.stack().kafkaBootstrap(), topic, 1);
    try (KafkaProducer<String, String> producer = TestKafka.producer(ns.stack().kafkaBootstrap())) {
      producer.send(record(topic, "lc-1", "00-" + TRACE_A + "-b7ad6b7169203331-01")).get();
      producer.send(record(topic, null, null)).get(); // poison: no message id
      producer.send(record(topic, "lc-2", null)).get();
      producer.send(record(topic, "lc-3", "00-" + TRACE_B + "-00f067aa0ba902b7-01")).get();
    }
    org.slf4j.Logger handlerLog = LoggerFactory.getLogger("dev.ordinal.test.LoggingHandler");
    Set<String> failedOnce = ConcurrentHashMap.newKeySet();
    MessageHandler handler =
        (tx, m) -> {
          handlerLog.info("handling {}", m.messageId());
          // lc-3 fails on its first try: the inbox's own warning is logged in its context
          if (m.messageId().equals("lc-3") && failedOnce.add(m.messageId())) {
            throw new IllegalStateException("first try of lc-3");
          }
        };
    ListAppender<ILoggingEvent> handlerLines = listen("dev.ordinal.test.LoggingHandler");
    ListAppender<ILoggingEvent> inboxLines =
        listen("dev.ordinal.messaging.inbox.internal.RecordApplier");
    try (InboxConsumer consumer =
        new InboxConsumer(
                InboxConsumerConfig.of(
                        "log-context",
                        ns.group("log-context"),
                        List.of(topic),
                        ns.stack().kafkaBootstrap())
                    .withBackoff(Duration.ofMillis(50), Duration.ofMillis(200)),
                DSL.using(ns.dataSource(), SQLDialect.POSTGRES),
                handler,
                new SimpleMeterRegistry(),
                Clock.systemUTC())
            .start()) {
      await().atMost(Duration.ofSeconds(30)).until(() -> consumer.applied() == 3);
      assertThat(consumer.deadLettered()).isEqualTo(1);
      assertThat(consumer.retried()).isEqualTo(1);
    } finally {
      detach("dev.ordinal.test.LoggingHandler", handlerLines);
      detach("dev.ordinal.messaging.inbox.internal.RecordApplier", inboxLines);
    }

    // lc-3 was handled twice: a failed try, then the applied one
    assertThat(handlerLines.list)
        .extracting(ILoggingEvent::getFormattedMessage)
        .containsExactly("handling lc-1", "handling lc-2", "handling lc-3", "handling lc-3");
    assertThat(handlerLines.list.get(0).getMDCPropertyMap())
        .containsEntry(LogContext.MESSAGE_ID, "lc-1")
        .containsEntry(LogContext.TRACE_ID, TRACE_A);
    assertThat(handlerLines.list.get(1).getMDCPropertyMap())
        .containsEntry(LogContext.MESSAGE_ID, "lc-2")
        .doesNotContainKey(LogContext.TRACE_ID);
    for (ILoggingEvent lc3 : handlerLines.list.subList(2, 4)) {
      assertThat(lc3.getMDCPropertyMap())
          .containsEntry(LogContext.MESSAGE_ID, "lc-3")
          .containsEntry(LogContext.TRACE_ID, TRACE_B);
    }

    List<ILoggingEvent> retried =
        inboxLines.list.stream()
            .filter(e -> e.getFormattedMessage().startsWith("Message lc-3 "))
            .toList();
    assertThat(retried).hasSize(1);
    assertThat(retried.get(0).getMDCPropertyMap())
        .containsEntry(LogContext.MESSAGE_ID, "lc-3")
        .containsEntry(LogContext.TRACE_ID, TRACE_B);
    // the poison record after lc-1 has neither: lc-1's were cleared after it was applied
    List<ILoggingEvent> poison =
        inboxLines.list.stream().filter(e -> e.getFormattedMessage().contains("-0@1")).toList();
    assertThat(poison).hasSize(1);
    assertThat(poison.get(0).getMDCPropertyMap())
        .doesNotContainKeys(LogContext.MESSAGE_ID, LogContext.TRACE_ID);
  }

  private static ProducerRecord<String, String> record(
      String topic, String messageId, String traceparent) {
    ProducerRecord<String, String> r = new ProducerRecord<>(topic, 0, "k", "{}");
    if (messageId != null) {
      r.headers().add(MessageHeaders.MESSAGE_ID, MessageHeaders.encode(messageId));
    }
    r.headers().add(MessageHeaders.EVENT_TYPE, MessageHeaders.encode("Logged"));
    if (traceparent != null) {
      r.headers().add(MessageHeaders.TRACEPARENT, MessageHeaders.encode(traceparent));
    }
    return r;
  }

  private static ListAppender<ILoggingEvent> listen(String logger) {
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    ((Logger) LoggerFactory.getLogger(logger)).addAppender(lines);
    return lines;
  }

  private static void detach(String logger, ListAppender<ILoggingEvent> lines) {
    ((Logger) LoggerFactory.getLogger(logger)).detachAppender(lines);
  }
}
