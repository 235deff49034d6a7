package dev.ordinal.messaging.inbox;

import dev.ordinal.messaging.kafka.ContractHeaders;
import dev.ordinal.messaging.kafka.MessageHeaders;
import java.util.List;
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

  /** Reads the contract from a record with Ordinal's or CloudEvents' headers. */
  public static Envelope of(ConsumerRecord<String, String> record) {
    return of(record, ContractHeaders.DEFAULT);
  }

  /**
   * Reads the contract from a record, the message id and event type from the first of {@code
   * headers}' names the record has.
   *
   * @throws PoisonMessageException when the message id or event type header is missing, or the
   *     value is empty: such a record can never be applied
   */
  public static Envelope of(ConsumerRecord<String, String> record, ContractHeaders headers) {
    String messageId =
        headers
            .messageIdOf(record.headers())
            .orElseThrow(() -> missing(record, headers.messageId()));
    String eventType =
        headers
            .eventTypeOf(record.headers())
            .orElseThrow(() -> missing(record, headers.eventType()));
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

  private static PoisonMessageException missing(ConsumerRecord<?, ?> record, List<String> names) {
    return new PoisonMessageException(
        "Record " + where(record) + " has no " + String.join(" or ", names) + " header");
  }

  private static String where(ConsumerRecord<?, ?> r) {
    return r.topic() + "-" + r.partition() + "@" + r.offset();
  }
}
