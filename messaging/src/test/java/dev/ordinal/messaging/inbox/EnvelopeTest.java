package dev.ordinal.messaging.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ordinal.contracts.AggregateType;
import dev.ordinal.contracts.EventCodec;
import dev.ordinal.contracts.EventType;
import dev.ordinal.contracts.OrderCancelledV1;
import dev.ordinal.messaging.kafka.ContractHeaders;
import dev.ordinal.messaging.kafka.HeaderFormat;
import dev.ordinal.messaging.kafka.MessageHeaders;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

class EnvelopeTest {
  static final UUID ORDER = UUID.fromString("0b9e6f0c-3c1e-4a57-9d3f-2f7a8e5b1c42");

  @Test
  void readsTheContractHeaders() {
    OrderCancelledV1 event = new OrderCancelledV1(ORDER, "changed mind", null);
    String payload = EventCodec.toJson(event);
    ConsumerRecord<String, String> r =
        new ConsumerRecord<>("p.order", 2, 7L, ORDER.toString(), payload);
    r.headers().add(MessageHeaders.MESSAGE_ID, MessageHeaders.encode("m-1"));
    r.headers().add(MessageHeaders.EVENT_TYPE, MessageHeaders.encode(event.type().wireName()));
    r.headers()
        .add(MessageHeaders.AGGREGATE_TYPE, MessageHeaders.encode(AggregateType.ORDER.wireName()));
    Envelope e = Envelope.of(r);
    assertThat(e)
        .isEqualTo(
            new Envelope(
                "m-1",
                EventType.ORDER_CANCELLED.wireName(),
                AggregateType.ORDER.wireName(),
                ORDER.toString(),
                payload,
                "p.order",
                2,
                7L));
  }

  @Test
  void aRecordWithoutMessageIdIsPoison() {
    ConsumerRecord<String, String> r = new ConsumerRecord<>("p.order", 0, 3L, "k", "{}");
    r.headers()
        .add(MessageHeaders.EVENT_TYPE, MessageHeaders.encode(EventType.ORDER_PLACED.wireName()));
    assertThatThrownBy(() -> Envelope.of(r))
        .isInstanceOf(PoisonMessageException.class)
        .hasMessage("Record p.order-0@3 has no message-id or ce_id header");
  }

  @Test
  void aRecordWithoutPayloadIsPoison() {
    ConsumerRecord<String, String> r = new ConsumerRecord<>("p.order", 0, 3L, "k", null);
    r.headers().add(MessageHeaders.MESSAGE_ID, MessageHeaders.encode("m-1"));
    r.headers()
        .add(MessageHeaders.EVENT_TYPE, MessageHeaders.encode(EventType.ORDER_PLACED.wireName()));
    assertThatThrownBy(() -> Envelope.of(r)).isInstanceOf(PoisonMessageException.class);
  }

  @Test
  void theFirstNamedHeaderPresentWinsAndAnUnnamedOneIsNotRead() {
    ConsumerRecord<String, String> r = new ConsumerRecord<>("p.order", 0, 3L, "k", "{}");
    r.headers().add("id", MessageHeaders.encode("router-id"));
    r.headers().add(HeaderFormat.CE_ID, MessageHeaders.encode("ce-id"));
    r.headers().add(HeaderFormat.CE_TYPE, MessageHeaders.encode("OrderPlaced"));
    assertThat(Envelope.of(r).messageId()).isEqualTo("ce-id");
    assertThat(Envelope.of(r).eventType()).isEqualTo("OrderPlaced");
    ContractHeaders routerFirst =
        new ContractHeaders(List.of("id", HeaderFormat.CE_ID), List.of(HeaderFormat.CE_TYPE));
    assertThat(Envelope.of(r, routerFirst).messageId()).isEqualTo("router-id");
    r.headers().add(MessageHeaders.MESSAGE_ID, MessageHeaders.encode("ordinal-id"));
    assertThat(Envelope.of(r).messageId()).isEqualTo("ordinal-id");
  }
}
