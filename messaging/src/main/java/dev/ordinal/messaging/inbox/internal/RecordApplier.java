package dev.ordinal.messaging.inbox.internal;

import dev.ordinal.messaging.inbox.Envelope;
import dev.ordinal.messaging.inbox.InboxConsumerConfig;
import dev.ordinal.messaging.inbox.PoisonMessageException;
import dev.ordinal.messaging.kafka.ContractHeaders;
import dev.ordinal.messaging.kafka.MessageHeaders;
import dev.ordinal.runtime.LogContext;
import dev.ordinal.runtime.Tracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * One record to its outcome, counted and logged by message id: applied ({@link InboxTransaction}),
 * a duplicate, dead-lettered (poison: no envelope, or the handler says it can never be applied) or
 * to be retried (anything else). Thread-safe: the workers share it.
 *
 * @param headers where the message id and event type are read from
 * @param deadLetters where poison goes; null to count and skip it
 */
record RecordApplier(
    String consumer,
    ContractHeaders headers,
    InboxTransaction inbox,
    DeadLetterPublisher deadLetters,
    InboxMetrics metrics) {
  private static final Logger log = LoggerFactory.getLogger(RecordApplier.class);
  private static final Pattern TRACE_ID = Pattern.compile("[0-9a-f]{32}");
  private static final String INVALID_TRACE = "0".repeat(32);

  enum Outcome {
    APPLIED,
    DUPLICATE,
    DEAD_LETTERED,
    RETRY
  }

  /** What applying one record came to; {@code cause} is why it must be retried. */
  record Applied(Outcome outcome, Throwable cause) {}

  /**
   * Applies {@code record} in a span of its own, the child of the trace context its headers carry
   * ({@code traceparent}, {@code tracestate}) and current meanwhile, so the handler writes that
   * context on ({@link Tracing}); with its message id and trace id in the log context ({@link
   * LogContext#MESSAGE_ID}, {@link LogContext#TRACE_ID}): every line logged meanwhile on this
   * thread, the handler's too, carries them; they are gone from it afterwards.
   */
  Applied apply(ConsumerRecord<String, String> record) {
    headers.messageIdOf(record.headers()).ifPresent(id -> MDC.put(LogContext.MESSAGE_ID, id));
    Optional<String> traceparent = MessageHeaders.get(record.headers(), MessageHeaders.TRACEPARENT);
    traceparent
        .flatMap(RecordApplier::traceId)
        .ifPresent(trace -> MDC.put(LogContext.TRACE_ID, trace));
    Span span =
        Tracing.start(
            "process " + record.topic(),
            SpanKind.CONSUMER,
            Tracing.extract(
                traceparent.orElse(null),
                MessageHeaders.get(record.headers(), Tracing.TRACESTATE).orElse(null)));
    try (Scope current = span.makeCurrent()) {
      Applied applied = applyInContext(record);
      if (applied.outcome() == Outcome.DEAD_LETTERED || applied.outcome() == Outcome.RETRY) {
        span.setStatus(StatusCode.ERROR, applied.outcome().name());
      }
      return applied;
    } finally {
      span.end();
      MDC.remove(LogContext.MESSAGE_ID);
      MDC.remove(LogContext.TRACE_ID);
    }
  }

  /**
   * The trace id of a W3C {@code traceparent} ({@code version-traceid-parentid-flags}): its second
   * field, 32 lower-case hex digits, not all zero; empty for anything else.
   */
  static Optional<String> traceId(String traceparent) {
    String[] fields = traceparent.strip().split("-");
    if (fields.length < 4
        || !TRACE_ID.matcher(fields[1]).matches()
        || INVALID_TRACE.equals(fields[1])) {
      return Optional.empty();
    }
    return Optional.of(fields[1]);
  }

  private Applied applyInContext(ConsumerRecord<String, String> record) {
    Envelope message;
    try {
      message = Envelope.of(record, headers);
    } catch (PoisonMessageException e) {
      return deadLetter(record, e);
    }
    try {
      if (!inbox.apply(message)) {
        metrics.duplicates.increment();
        log.debug("Message {} already applied by {}", message.messageId(), consumer);
        return new Applied(Outcome.DUPLICATE, null);
      }
      metrics.applied.increment();
      return new Applied(Outcome.APPLIED, null);
    } catch (PoisonMessageException e) {
      return deadLetter(record, e);
    } catch (RuntimeException e) {
      return retry(message, e);
    }
  }

  /** Sends {@code record} to its dead-letter topic (or skips it); RETRY when it could not. */
  Applied deadLetter(ConsumerRecord<String, String> record, PoisonMessageException e) {
    String where = record.topic() + "-" + record.partition() + "@" + record.offset();
    if (deadLetters == null) {
      metrics.deadLettered.increment();
      log.warn("Skipping poison record {}: {}", where, e.getMessage());
      return new Applied(Outcome.DEAD_LETTERED, null);
    }
    String deadLetterTopic = InboxConsumerConfig.deadLetterTopic(record.topic());
    try {
      deadLetters.publish(record, e.getMessage());
      metrics.deadLettered.increment();
      log.warn("Dead-lettered {} to {}: {}", where, deadLetterTopic, e.getMessage());
      return new Applied(Outcome.DEAD_LETTERED, null);
    } catch (Exception sendFailed) {
      metrics.retried.increment();
      log.warn(
          "Could not dead-letter {} to {}; it will be retried: {}",
          where,
          deadLetterTopic,
          sendFailed.toString());
      if (sendFailed instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      return new Applied(Outcome.RETRY, sendFailed);
    }
  }

  private Applied retry(Envelope message, RuntimeException e) {
    metrics.retried.increment();
    log.warn(
        "Message {} ({}-{}@{}) failed and will be retried: {}",
        message.messageId(),
        message.topic(),
        message.partition(),
        message.offset(),
        e.toString());
    return new Applied(Outcome.RETRY, e);
  }
}
