package dev.ordinal.ops.dlq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ordinal.contracts.EventType;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.kafka.HeaderFormat;
import dev.ordinal.messaging.kafka.MessageHeaders;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;

class DeadLetterFilterTest {
  static final DeadLetter LETTER =
      new DeadLetter(
          "orders.dlq",
          0,
          17,
          Instant.EPOCH,
          "order-1",
          "{}",
          List.of(
              header(MessageHeaders.MESSAGE_ID, "42"),
              header(MessageHeaders.EVENT_TYPE, EventType.ORDER_PLACED.wireName()),
              header(MessageHeaders.DLQ_ERROR, "Unknown currency XXX"),
              header(MessageHeaders.DLQ_CONSUMER, "billing"),
              header(MessageHeaders.DLQ_TOPIC, "orders"),
              header(MessageHeaders.DLQ_PARTITION, "2"),
              header(MessageHeaders.DLQ_OFFSET, "301"),
              header(MessageHeaders.DLQ_AT, "2026-05-01T10:00:00Z")));

  @Test
  void clausesMatchEqualOrContainingIgnoringCaseAndAllMustHold() {
    assertThat(parse("message-id=42").test(LETTER)).isTrue();
    assertThat(parse("message-id=4").test(LETTER)).isFalse();
    assertThat(parse("error~=unknown CURRENCY").test(LETTER)).isTrue();
    assertThat(parse("offset=17", "original-offset=301", "original-partition=2").test(LETTER))
        .isTrue();
    assertThat(parse("offset=017").test(LETTER)).as("numbers compare as numbers").isTrue();
    assertThat(parse("consumer=billing", "key=order-2").test(LETTER)).isFalse();
    assertThat(parse("original-topic=orders", "partition=0").test(LETTER)).isTrue();
    assertThat(parse("error~=a=b").clauses().get(0).value()).isEqualTo("a=b");
    assertThat(DeadLetterFilter.ALL.test(LETTER)).isTrue();
  }

  @Test
  void theDeadLettersHeadersAreReadAndTheOriginalOnesKept() {
    assertThat(LETTER.originalPartition()).hasValue(2);
    assertThat(LETTER.originalOffset()).hasValue(301);
    assertThat(LETTER.deadLetteredAt()).contains(Instant.parse("2026-05-01T10:00:00Z"));
    assertThat(LETTER.originalHeaders())
        .extracting(Header::key)
        .containsExactly(MessageHeaders.MESSAGE_ID, MessageHeaders.EVENT_TYPE);
  }

  @Test
  void aDeadLetterInCloudEventsFormIsFoundByItsCeId() {
    DeadLetter ce =
        new DeadLetter(
            "orders.dlq",
            0,
            18,
            Instant.EPOCH,
            "order-1",
            "{}",
            List.of(header(HeaderFormat.CE_ID, "43"), header(MessageHeaders.DLQ_ERROR, "bad")));
    assertThat(ce.messageId()).hasValue("43");
    assertThat(parse("message-id=43").test(ce)).isTrue();
  }

  @Test
  void malformedClausesAreRefusedWithOneSentence() {
    assertThatThrownBy(() -> parse("message-id"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("The filter 'message-id' must be field=value or field~=text");
    assertThatThrownBy(() -> parse("error~="))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("The filter 'error~=' must be field=value or field~=text");
    assertThatThrownBy(() -> parse("~=x")).isInstanceOf(ConfigurationException.class);
    assertThatThrownBy(() -> parse("partition=one"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("partition=one is not a number; partition takes one");
  }

  private static DeadLetterFilter parse(String... clauses) {
    return DeadLetterFilter.parse(List.of(clauses));
  }

  private static Header header(String name, String value) {
    return new RecordHeader(name, MessageHeaders.encode(value));
  }
}
