package dev.ordinal.monitor.internal;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ordinal.messaging.kafka.MessageHeaders;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the contract (headers + JSON payload) into an {@link Event} and drops a message whose
 * {@code message-id} was seen before. The same message always has the same key, so it reaches the
 * same task and this task's store is enough. Unknown event types and unreadable payloads are
 * skipped (and logged): the monitor reports on the events, it does not stop on them.
 */
public final class EventParser implements Processor<String, byte[], String, Event> {
  private static final Logger log = LoggerFactory.getLogger(EventParser.class);

  private final String seenStoreName;
  private ProcessorContext<String, Event> context;
  private KeyValueStore<String, Long> seen;

  public EventParser(String seenStoreName) {
    this.seenStoreName = seenStoreName;
  }

  @Override
  public void init(ProcessorContext<String, Event> context) {
    this.context = context;
    this.seen = context.getStateStore(seenStoreName);
  }

  @Override
  public void process(Record<String, byte[]> record) {
    Optional<String> typeHeader = MessageHeaders.get(record.headers(), MessageHeaders.EVENT_TYPE);
    Event.Type type = typeHeader.map(Event.Type::of).orElse(null);
    if (type == null || record.value() == null) {
      return;
    }
    String messageId = MessageHeaders.get(record.headers(), MessageHeaders.MESSAGE_ID).orElse(null);
    if (messageId != null) {
      if (seen.get(messageId) != null) {
        return;
      }
      seen.put(messageId, context.currentSystemTimeMs());
    }
    Event event = parse(type, messageId, record);
    if (event != null) {
      context.forward(record.withKey(event.orderId()).withValue(event));
    }
  }

  private static Event parse(Event.Type type, String messageId, Record<String, byte[]> record) {
    JsonNode json;
    try {
      json = JsonSerde.MAPPER.readTree(record.value());
    } catch (IOException e) {
      log.warn(
          "Skipping unreadable {} message-id={}: {}",
          type,
          messageId,
          new String(record.value(), StandardCharsets.UTF_8));
      return null;
    }
    String orderId = text(json, "orderId");
    if (orderId == null) {
      orderId = record.key();
    }
    if (orderId == null) {
      log.warn("Skipping {} message-id={} without an order id", type, messageId);
      return null;
    }
    if (!type.numbered()) {
      return new Event(type, messageId, orderId, null, null, null);
    }
    JsonNode number = json.get("number");
    return new Event(
        type,
        messageId,
        orderId,
        text(json, "invoiceId"),
        text(json, "series"),
        number == null || number.isNull() ? null : number.asLong());
  }

  private static String text(JsonNode json, String field) {
    JsonNode node = json.get(field);
    return node == null || node.isNull() ? null : node.asText();
  }
}
