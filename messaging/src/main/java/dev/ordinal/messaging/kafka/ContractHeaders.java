package dev.ordinal.messaging.kafka;

import dev.ordinal.runtime.settings.Setting;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.header.Headers;

/**
 * Which headers a consumer reads the message id and the event type from, each a list tried in
 * order, the first present and not blank winning. The default reads Ordinal's own headers ({@code
 * message-id}, {@code event-type}) and then their CloudEvents binary form ({@code ce_id}, {@code
 * ce_type}), so records from either relay in either {@link HeaderFormat} are applied. Records from
 * Debezium's outbox EventRouter as it comes (on Kafka Connect, configured by its user) carry the
 * row id in a header named {@code id}: name it with {@link #MESSAGE_ID_HEADERS} ({@code
 * --message-id-header message-id,id}).
 *
 * @param messageId header names of the message id (the outbox row id, the dedupe key)
 * @param eventType header names of the event type
 */
public record ContractHeaders(List<String> messageId, List<String> eventType) {
  /** Ordinal's own, then CloudEvents. */
  public static final ContractHeaders DEFAULT =
      new ContractHeaders(
          List.of(MessageHeaders.MESSAGE_ID, HeaderFormat.CE_ID),
          List.of(MessageHeaders.EVENT_TYPE, HeaderFormat.CE_TYPE));

  public static final Setting<List<String>> MESSAGE_ID_HEADERS =
      Setting.list(
          "message-id-header",
          String.class,
          s -> s,
          DEFAULT.messageId(),
          "none",
          "Headers that carry a record's message id (its dedupe key), tried in order: 'id' for"
              + " records of Debezium's outbox EventRouter",
          ContractHeaders::checkNames);

  public static final Setting<List<String>> EVENT_TYPE_HEADERS =
      Setting.list(
          "event-type-header",
          String.class,
          s -> s,
          DEFAULT.eventType(),
          "none",
          "Headers that carry a record's event type, tried in order",
          ContractHeaders::checkNames);

  /**
   * How a relay writes the headers ({@link HeaderFormat}); kept here so that {@code HeaderFormat}
   * needs nothing but Kafka's API inside a Connect worker.
   */
  public static final Setting<HeaderFormat> FORMAT =
      Setting.choice(
          "headers",
          HeaderFormat.class,
          HeaderFormat.ORDINAL,
          "Headers of the published events: ordinal (message-id, event-type, aggregate-type,"
              + " occurred-at), cloudevents (ce_id, ce_type, ce_source, ce_time, ce_subject,"
              + " ce_specversion, content-type) or both");

  public ContractHeaders {
    messageId = List.copyOf(messageId);
    eventType = List.copyOf(eventType);
    for (List<String> names : List.of(messageId, eventType)) {
      String problem = checkNames(names);
      if (problem != null) {
        throw new IllegalArgumentException("header names " + problem);
      }
    }
  }

  /** The message id of a record with {@code headers}, if one of {@link #messageId} has one. */
  public Optional<String> messageIdOf(Headers headers) {
    return first(headers, messageId);
  }

  /** The event type of a record with {@code headers}, if one of {@link #eventType} has one. */
  public Optional<String> eventTypeOf(Headers headers) {
    return first(headers, eventType);
  }

  private static Optional<String> first(Headers headers, List<String> names) {
    for (String name : names) {
      Optional<String> v = MessageHeaders.get(headers, name).filter(s -> !s.isBlank());
      if (v.isPresent()) {
        return v;
      }
    }
    return Optional.empty();
  }

  private static String checkNames(List<String> names) {
    if (names.isEmpty()) {
      return "must name at least one header";
    }
    if (names.stream().anyMatch(String::isBlank)) {
      return "must not be blank: " + names;
    }
    return names.stream().distinct().count() != names.size() ? "names a header twice" : null;
  }
}
