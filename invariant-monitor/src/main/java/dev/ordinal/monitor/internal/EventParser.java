package dev.ordinal.monitor.internal;

import dev.ordinal.contracts.EventCodec;
import dev.ordinal.contracts.EventPayload;
import dev.ordinal.contracts.EventType;
import dev.ordinal.contracts.InvoiceIssuedV1;
import dev.ordinal.contracts.InvoiceVoidedV1;
import dev.ordinal.contracts.MalformedEventException;
import dev.ordinal.messaging.kafka.ContractHeaders;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.UUID;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the contract (headers + the payload as the contract's record, {@code
 * dev.ordinal.contracts}) into an {@link Event} and drops a message whose {@code message-id} was
 * seen before. The same message always has the same key, so it reaches the same task and this
 * task's store is enough. Unknown event types and unreadable payloads are skipped (and logged): the
 * monitor reports on the events, it does not stop on them.
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
    Optional<EventType> eventType =
        ContractHeaders.DEFAULT.eventTypeOf(record.headers()).flatMap(EventType::fromWire);
    if (eventType.isEmpty() || record.value() == null) {
      return;
    }
    // Ordinal's headers or their CloudEvents form, as the inbox reads them
    String messageId = ContractHeaders.DEFAULT.messageIdOf(record.headers()).orElse(null);
    if (messageId != null) {
      if (seen.get(messageId) != null) {
        return;
      }
      seen.put(messageId, context.currentSystemTimeMs());
    }
    Event event = parse(eventType.get(), messageId, record);
    if (event != null) {
      context.forward(record.withKey(event.orderId()).withValue(event));
    }
  }

  private static Event parse(EventType type, String messageId, Record<String, byte[]> record) {
    EventPayload payload;
    try {
      payload = EventCodec.fromJson(type, record.value());
    } catch (MalformedEventException e) {
      log.warn(
          "Skipping unreadable {} message-id={}: {}: {}",
          type.wireName(),
          messageId,
          e.getMessage(),
          new String(record.value(), StandardCharsets.UTF_8));
      return null;
    }
    String orderId = payload.orderId().toString();
    if (payload instanceof InvoiceIssuedV1 issued) {
      return event(type, messageId, orderId, issued.invoiceId(), issued.series(), issued.number());
    }
    if (payload instanceof InvoiceVoidedV1 voided) {
      return event(type, messageId, orderId, voided.invoiceId(), voided.series(), voided.number());
    }
    return new Event(Event.Type.of(type), messageId, orderId, null, null, null);
  }

  /** The event of an invoice's message. */
  private static Event event(
      EventType type,
      String messageId,
      String orderId,
      UUID invoiceId,
      String series,
      long number) {
    return new Event(Event.Type.of(type), messageId, orderId, invoiceId.toString(), series, number);
  }
}
