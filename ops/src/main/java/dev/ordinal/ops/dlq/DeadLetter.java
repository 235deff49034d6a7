package dev.ordinal.ops.dlq;

import dev.ordinal.messaging.kafka.HeaderFormat;
import dev.ordinal.messaging.kafka.MessageHeaders;
import java.nio.ByteBuffer;
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
 * those headers and are empty when a header is missing or malformed. Where Ordinal's header is
 * absent they read the one Spring Kafka's {@code DeadLetterPublishingRecoverer} writes ({@code
 * kafka_dlt-original-topic}, {@code -original-partition} and {@code -original-offset} as big-endian
 * int and long, {@code -exception-fqcn}, {@code -exception-message}, {@code
 * -original-consumer-group}).
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

  /** The prefix of the headers Spring Kafka's dead-letter publishing adds. */
  public static final String SPRING_HEADER_PREFIX = "kafka_dlt-";

  /**
   * How many times the message has been re-driven: set by each re-drive to the letter's count plus
   * one, and carried into the dead-letter topic again when the consumer rejects it again.
   */
  public static final String REDRIVE_COUNT = "ordinal-redrive-count";

  private static final String SPRING_TOPIC = "kafka_dlt-original-topic";
  private static final String SPRING_PARTITION = "kafka_dlt-original-partition";
  private static final String SPRING_OFFSET = "kafka_dlt-original-offset";
  private static final String SPRING_FQCN = "kafka_dlt-exception-fqcn";
  private static final String SPRING_MESSAGE = "kafka_dlt-exception-message";
  private static final String SPRING_GROUP = "kafka_dlt-original-consumer-group";

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
    return Optional.ofNullable(lastHeader(name)).map(v -> new String(v, StandardCharsets.UTF_8));
  }

  /** Its message id: Ordinal's {@code message-id}, or CloudEvents' {@code ce_id}. */
  public Optional<String> messageId() {
    return header(MessageHeaders.MESSAGE_ID)
        .or(() -> header(HeaderFormat.CE_ID))
        .filter(v -> !v.isBlank());
  }

  /** Why: Ordinal's {@code dlq-error}, or Spring's exception class and message. */
  public Optional<String> error() {
    return header(MessageHeaders.DLQ_ERROR)
        .or(
            () ->
                header(SPRING_FQCN)
                    .map(c -> header(SPRING_MESSAGE).map(m -> c + ": " + m).orElse(c)));
  }

  /** The inbox consumer that gave up on it, or Spring's consumer group. */
  public Optional<String> consumer() {
    return header(MessageHeaders.DLQ_CONSUMER).or(() -> header(SPRING_GROUP));
  }

  public Optional<String> originalTopic() {
    return header(MessageHeaders.DLQ_TOPIC)
        .or(() -> header(SPRING_TOPIC))
        .filter(v -> !v.isBlank());
  }

  public OptionalInt originalPartition() {
    Optional<Integer> ordinal = number(MessageHeaders.DLQ_PARTITION, Integer::parseInt);
    if (ordinal.isPresent() || lastHeader(MessageHeaders.DLQ_PARTITION) != null) {
      return ordinal.map(OptionalInt::of).orElse(OptionalInt.empty());
    }
    byte[] v = lastHeader(SPRING_PARTITION);
    return v != null && v.length == Integer.BYTES
        ? OptionalInt.of(ByteBuffer.wrap(v).getInt())
        : OptionalInt.empty();
  }

  public OptionalLong originalOffset() {
    Optional<Long> ordinal = number(MessageHeaders.DLQ_OFFSET, Long::parseLong);
    if (ordinal.isPresent() || lastHeader(MessageHeaders.DLQ_OFFSET) != null) {
      return ordinal.map(OptionalLong::of).orElse(OptionalLong.empty());
    }
    byte[] v = lastHeader(SPRING_OFFSET);
    return v != null && v.length == Long.BYTES
        ? OptionalLong.of(ByteBuffer.wrap(v).getLong())
        : OptionalLong.empty();
  }

  /** Its {@link #REDRIVE_COUNT} header: 0 when absent or not a number. */
  public int redriveCount() {
    return number(REDRIVE_COUNT, Integer::parseInt).filter(n -> n > 0).orElse(0);
  }

  private byte[] lastHeader(String name) {
    for (int i = headers.size() - 1; i >= 0; i--) {
      if (headers.get(i).key().equals(name)) {
        return headers.get(i).value();
      }
    }
    return null;
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

  /**
   * The headers it had on its original topic, in order: all but the {@code dlq-*}, {@code
   * kafka_dlt-*} and {@link #REDRIVE_COUNT} ones (a re-drive sets the count anew).
   */
  public List<Header> originalHeaders() {
    return headers.stream()
        .filter(
            h ->
                !h.key().startsWith(DLQ_HEADER_PREFIX)
                    && !h.key().startsWith(SPRING_HEADER_PREFIX)
                    && !h.key().equals(REDRIVE_COUNT))
        .toList();
  }
}
