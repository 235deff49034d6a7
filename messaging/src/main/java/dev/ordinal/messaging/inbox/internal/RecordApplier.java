package dev.ordinal.messaging.inbox.internal;

import dev.ordinal.messaging.inbox.Envelope;
import dev.ordinal.messaging.inbox.InboxConsumerConfig;
import dev.ordinal.messaging.inbox.PoisonMessageException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One record to its outcome, counted and logged by message id: applied ({@link InboxTransaction}),
 * a duplicate, dead-lettered (poison: no envelope, or the handler says it can never be applied) or
 * to be retried (anything else). Thread-safe: the workers share it.
 *
 * @param deadLetters where poison goes; null to count and skip it
 */
record RecordApplier(
    String consumer,
    InboxTransaction inbox,
    DeadLetterPublisher deadLetters,
    InboxMetrics metrics) {
  private static final Logger log = LoggerFactory.getLogger(RecordApplier.class);

  enum Outcome {
    APPLIED,
    DUPLICATE,
    DEAD_LETTERED,
    RETRY
  }

  /** What applying one record came to; {@code cause} is why it must be retried. */
  record Applied(Outcome outcome, Throwable cause) {}

  Applied apply(ConsumerRecord<String, String> record) {
    Envelope message;
    try {
      message = Envelope.of(record);
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
    try {
      deadLetters.publish(record, e.getMessage());
      metrics.deadLettered.increment();
      log.warn(
          "Dead-lettered {} to {}: {}",
          where,
          InboxConsumerConfig.deadLetterTopic(record.topic()),
          e.getMessage());
      return new Applied(Outcome.DEAD_LETTERED, null);
    } catch (Exception sendFailed) {
      metrics.retried.increment();
      log.warn(
          "Could not dead-letter {} to {}; it will be retried: {}",
          where,
          InboxConsumerConfig.deadLetterTopic(record.topic()),
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
