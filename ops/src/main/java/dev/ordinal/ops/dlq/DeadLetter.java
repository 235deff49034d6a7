package dev.ordinal.ops.dlq;

import dev.ordinal.messaging.kafka.HeaderFormat;
import dev.ordinal.messaging.kafka.MessageHeaders;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Function;
import org.apache.kafka.common.header.Header;

/**
 * One record of a dead-letter topic ({@code <topic>.dlq}), as {@link
 * dev.ordinal.messaging.inbox.InboxConsumer} wrote it: the original key, payload and headers, plus
 * {@code dlq-*} headers saying why, by which consumer, from where and when. The accessors read
 * those headers and are empty when a header is missing or malformed.
 *
 * @param topic the dead-letter topic
 * @param partition its partition holding this record
 * @param offset its offset there
 * @param timestamp the record's timestamp
 * @param headers every header, in order
 */
public record DeadLetter(
    String topic,
    int partition,
    long offset,
    Instant timestamp,
    String key,
    String payload,
    List<Header> headers) {

  /** Headers whose name starts with this were added by the dead-lettering, not by the producer. */
  public static final String DLQ_HEADER_PREFIX = "dlq-";

  public DeadLetter {
    Objects.requireNonNull(topic, "topic");
    headers = List.copyOf(headers);
  }

  /** Where a dead letter is in its topic. */
  public record Position(int partition, long offset) {}

  public Position position() {
    return new Position(partition, offset);
  }

  /** The last value of header {@code name}, as UTF-8. */
  public Optional<String> header(String name) {
    for (int i = headers.size() - 1; i >= 0; i--) {
      Header h = headers.get(i);
      if (h.key().equals(name)) {
        return h.value() == null
            ? Optional.empty()
            : Optional.of(new String(h.value(), StandardCharsets.UTF_8));
      }
    }
    return Optional.empty();
  }

  /** Its message id: Ordinal's {@code message-id}, or CloudEvents' {@code ce_id}. */
  public Optional<String> messageId() {
    return header(MessageHeaders.MESSAGE_ID)
        .or(() -> header(HeaderFormat.CE_ID))
        .filter(v -> !v.isBlank());
  }

  public Optional<String> error() {
    return header(MessageHeaders.DLQ_ERROR);
  }

  /** The inbox consumer that gave up on it. */
  public Optional<String> consumer() {
    return header(MessageHeaders.DLQ_CONSUMER);
  }

  public Optional<String> originalTopic() {
    return header(MessageHeaders.DLQ_TOPIC).filter(v -> !v.isBlank());
  }

  public OptionalInt originalPartition() {
    return number(MessageHeaders.DLQ_PARTITION, Integer::parseInt)
        .map(OptionalInt::of)
        .orElse(OptionalInt.empty());
  }

  public OptionalLong originalOffset() {
    return number(MessageHeaders.DLQ_OFFSET, Long::parseLong)
        .map(OptionalLong::of)
        .orElse(OptionalLong.empty());
  }

  /** The header {@code name} parsed by {@code parse}; empty when absent or not a number. */
  private <T> Optional<T> number(String name, Function<String, T> parse) {
    try {
      return header(name).map(v -> parse.apply(v.trim()));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** When it was dead-lettered. */
  public Optional<Instant> deadLetteredAt() {
    try {
      return header(MessageHeaders.DLQ_AT).map(v -> Instant.parse(v.trim()));
    } catch (DateTimeException e) {
      return Optional.empty();
    }
  }

  /** The headers it had on its original topic: all but the {@code dlq-*} ones, in order. */
  public List<Header> originalHeaders() {
    return headers.stream().filter(h -> !h.key().startsWith(DLQ_HEADER_PREFIX)).toList();
  }
}
