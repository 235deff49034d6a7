package dev.ordinal.messaging.inbox;

import dev.ordinal.messaging.kafka.MessageHeaders;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * One message as a consumer sees it: the contract's headers, the key and the JSON payload, and
 * where it was read from.
 */
public record Envelope(
    String messageId,
    String eventType,
    String aggregateType,
    String aggregateId,
    String payload,
    String topic,
    int partition,
    long offset) {

  /**
   * Reads the contract from a record.
   *
   * @throws PoisonMessageException when the message id or event type header is missing, or the
   *     value is empty: such a record can never be applied
   */
  public static Envelope of(ConsumerRecord<String, String> record) {
    String messageId = require(record, MessageHeaders.MESSAGE_ID);
    String eventType = require(record, MessageHeaders.EVENT_TYPE);
    if (record.value() == null || record.value().isBlank()) {
      throw new PoisonMessageException(
          "Record " + where(record) + " (message " + messageId + ") has no payload");
    }
    Optional<String> aggregateType =
        MessageHeaders.get(record.headers(), MessageHeaders.AGGREGATE_TYPE);
    return new Envelope(
        messageId,
        eventType,
        aggregateType.orElse(null),
        record.key(),
        record.value(),
        record.topic(),
        record.partition(),
        record.offset());
  }

  private static String require(ConsumerRecord<String, String> record, String header) {
    return MessageHeaders.get(record.headers(), header)
        .filter(v -> !v.isBlank())
        .orElseThrow(
            () ->
                new PoisonMessageException(
                    "Record " + where(record) + " has no " + header + " header"));
  }

  private static String where(ConsumerRecord<?, ?> r) {
    return r.topic() + "-" + r.partition() + "@" + r.offset();
  }
}
