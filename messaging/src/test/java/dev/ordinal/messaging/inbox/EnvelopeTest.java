package dev.ordinal.messaging.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ordinal.messaging.kafka.MessageHeaders;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

class EnvelopeTest {

  @Test
  void readsTheContractHeaders() {
    ConsumerRecord<String, String> r = new ConsumerRecord<>("p.order", 2, 7L, "order-1", "{}");
    r.headers().add(MessageHeaders.MESSAGE_ID, MessageHeaders.encode("m-1"));
    r.headers().add(MessageHeaders.EVENT_TYPE, MessageHeaders.encode("OrderPlaced"));
    r.headers().add(MessageHeaders.AGGREGATE_TYPE, MessageHeaders.encode("order"));
    Envelope e = Envelope.of(r);
    assertThat(e)
        .isEqualTo(new Envelope("m-1", "OrderPlaced", "order", "order-1", "{}", "p.order", 2, 7L));
  }

  @Test
  void aRecordWithoutMessageIdIsPoison() {
    ConsumerRecord<String, String> r = new ConsumerRecord<>("p.order", 0, 3L, "k", "{}");
    r.headers().add(MessageHeaders.EVENT_TYPE, MessageHeaders.encode("OrderPlaced"));
    assertThatThrownBy(() -> Envelope.of(r))
        .isInstanceOf(PoisonMessageException.class)
        .hasMessage("Record p.order-0@3 has no message-id header");
  }

  @Test
  void aRecordWithoutPayloadIsPoison() {
    ConsumerRecord<String, String> r = new ConsumerRecord<>("p.order", 0, 3L, "k", null);
    r.headers().add(MessageHeaders.MESSAGE_ID, MessageHeaders.encode("m-1"));
    r.headers().add(MessageHeaders.EVENT_TYPE, MessageHeaders.encode("OrderPlaced"));
    assertThatThrownBy(() -> Envelope.of(r)).isInstanceOf(PoisonMessageException.class);
  }
}
