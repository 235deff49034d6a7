package dev.ordinal.contracts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract against its golden files: {@code golden/<event>-v1.json} holds the bytes the
 * producers wrote before this module existed (order-service's generator, billing's object nodes),
 * so a renamed field, a changed shape or a different rendering of an amount or an instant fails
 * here before it reaches a topic.
 */
class EventCodecTest {
  static final UUID ORDER = UUID.fromString("0b9e6f0c-3c1e-4a57-9d3f-2f7a8e5b1c42");
  static final UUID INVOICE = UUID.fromString("bc3e1a43-5502-33a3-807d-85b4966029d0");

  static final OrderPlacedV1 PLACED =
      new OrderPlacedV1(
          ORDER,
          "c-1042",
          "EUR",
          Channel.INTERACTIVE,
          "F2026-A",
          new BigDecimal("31.00"),
          List.of(
              new OrderPlacedV1.Line("BOOK-1", 2, new BigDecimal("12.50")),
              new OrderPlacedV1.Line("PEN-3", 1, new BigDecimal("6.00"))),
          Instant.parse("2026-03-02T12:00:00.123456Z"));
  static final OrderCancelledV1 CANCELLED =
      new OrderCancelledV1(ORDER, "wrong address", Instant.parse("2026-03-02T12:05:00Z"));
  static final InvoiceIssuedV1 ISSUED =
      new InvoiceIssuedV1(INVOICE, ORDER, "F2026-A", 17, new BigDecimal("31.00"), "EUR");
  static final InvoiceVoidedV1 VOIDED =
      new InvoiceVoidedV1(INVOICE, ORDER, "F2026-A", 18, "order cancelled");

  static EventPayload expected(EventType type) {
    return switch (type) {
      case ORDER_PLACED -> PLACED;
      case ORDER_CANCELLED -> CANCELLED;
      case INVOICE_ISSUED -> ISSUED;
      case INVOICE_VOIDED -> VOIDED;
    };
  }

  /** {@code order-placed-v1.json}, without the file's final line break. */
  static String golden(EventType type) {
    String name =
        "/golden/"
            + type.wireName().replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT)
            + "-v1.json";
    try (InputStream in = EventCodecTest.class.getResourceAsStream(name)) {
      assertThat(in).as(name).isNotNull();
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      assertThat(text).as(name + " ends with one line break").endsWith("}\n");
      return text.substring(0, text.length() - 1);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @ParameterizedTest
  @EnumSource(EventType.class)
  void theRecordIsWrittenAsTheGoldenFileByteForByte(EventType type) {
    assertThat(EventCodec.toJson(expected(type))).isEqualTo(golden(type));
  }

  @ParameterizedTest
  @EnumSource(EventType.class)
  void theGoldenFileReadsAsTheRecord(EventType type) {
    EventPayload read = EventCodec.fromJson(type, golden(type));

    assertThat(read).isEqualTo(expected(type)).isInstanceOf(type.payloadType());
    assertThat(read.type()).isEqualTo(type);
    assertThat(read.orderId()).isEqualTo(ORDER);
    assertThat(EventCodec.fromJson(type, golden(type).getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(read);
  }

  @Test
  void theNamesOnTheWireAreTheOnesTheTopicsCarry() {
    assertThat(Stream.of(EventType.values()).map(EventType::wireName))
        .containsExactly("OrderPlaced", "OrderCancelled", "InvoiceIssued", "InvoiceVoided");
    assertThat(Stream.of(AggregateType.values()).map(AggregateType::wireName))
        .containsExactly("order", "order-bulk", "invoice");
    assertThat(AggregateType.of(Channel.INTERACTIVE)).isEqualTo(AggregateType.ORDER);
    assertThat(AggregateType.of(Channel.BULK)).isEqualTo(AggregateType.ORDER_BULK);
    assertThat(AggregateType.ORDER_BULK.topic("ordinal")).isEqualTo("ordinal.order-bulk");
    assertThat(EventType.fromWire("OrderCancelled")).contains(EventType.ORDER_CANCELLED);
    assertThat(EventType.fromWire("OrderShipped")).isEmpty();
    assertThat(AggregateType.fromWire("invoice")).contains(AggregateType.INVOICE);
    assertThat(Channel.fromWire("bulk")).contains(Channel.BULK);
    assertThat(Channel.fromWire("BULK")).isEmpty();
  }

  @Test
  void optionalFieldsAreLeftOutWhenAbsentAsTheProducersDid() {
    OrderPlacedV1 bulkWithoutSeries =
        new OrderPlacedV1(
            ORDER,
            "c",
            "EUR",
            Channel.BULK,
            null,
            new BigDecimal("5.00"),
            List.of(new OrderPlacedV1.Line("A", 1, new BigDecimal("5.00"))),
            Instant.parse("2026-03-02T12:00:00Z"));
    assertThat(EventCodec.toJson(bulkWithoutSeries))
        .isEqualTo(
            "{\"orderId\":\"0b9e6f0c-3c1e-4a57-9d3f-2f7a8e5b1c42\",\"customerId\":\"c\","
                + "\"currency\":\"EUR\",\"channel\":\"bulk\",\"total\":\"5.00\","
                + "\"lines\":[{\"sku\":\"A\",\"quantity\":1,\"unitPrice\":\"5.00\"}],"
                + "\"placedAt\":\"2026-03-02T12:00:00Z\"}");
    assertThat(EventCodec.toJson(new OrderCancelledV1(ORDER, null, null)))
        .isEqualTo("{\"orderId\":\"0b9e6f0c-3c1e-4a57-9d3f-2f7a8e5b1c42\"}");
  }

  @Test
  void thePayloadAsItIsOnTheTopicReadsTheSame() {
    // the relay publishes PostgreSQL's jsonb rendering of what the producer wrote: keys by length,
    // then bytes, a space after each colon and comma
    String jsonb =
        "{\"lines\": [{\"sku\": \"BOOK-1\", \"quantity\": 2, \"unitPrice\": \"12.50\"}, {\"sku\":"
            + " \"PEN-3\", \"quantity\": 1, \"unitPrice\": \"6.00\"}], \"total\": \"31.00\","
            + " \"channel\": \"interactive\", \"orderId\": \"0b9e6f0c-3c1e-4a57-9d3f-2f7a8e5b1c42\","
            + " \"currency\": \"EUR\", \"placedAt\": \"2026-03-02T12:00:00.123456Z\","
            + " \"customerId\": \"c-1042\", \"invoiceSeries\": \"F2026-A\"}";

    assertThat(EventCodec.fromJson(jsonb, OrderPlacedV1.class)).isEqualTo(PLACED);
  }

  @ParameterizedTest
  @EnumSource(EventType.class)
  void unknownFieldsAreIgnored(EventType type) {
    ObjectNode json = tree(golden(type));
    json.put("addedByANewerProducer", "x");
    json.putObject("nested").put("a", 1);

    assertThat(EventCodec.fromJson(type, json.toString())).isEqualTo(expected(type));
  }

  static Stream<Arguments> requiredFields() {
    return Stream.of(
        Arguments.of(EventType.ORDER_PLACED, "orderId"),
        Arguments.of(EventType.ORDER_PLACED, "customerId"),
        Arguments.of(EventType.ORDER_PLACED, "currency"),
        Arguments.of(EventType.ORDER_PLACED, "total"),
        Arguments.of(EventType.ORDER_CANCELLED, "orderId"),
        Arguments.of(EventType.INVOICE_ISSUED, "invoiceId"),
        Arguments.of(EventType.INVOICE_ISSUED, "orderId"),
        Arguments.of(EventType.INVOICE_ISSUED, "series"),
        Arguments.of(EventType.INVOICE_ISSUED, "number"),
        Arguments.of(EventType.INVOICE_ISSUED, "total"),
        Arguments.of(EventType.INVOICE_ISSUED, "currency"),
        Arguments.of(EventType.INVOICE_VOIDED, "invoiceId"),
        Arguments.of(EventType.INVOICE_VOIDED, "orderId"),
        Arguments.of(EventType.INVOICE_VOIDED, "series"),
        Arguments.of(EventType.INVOICE_VOIDED, "number"),
        Arguments.of(EventType.INVOICE_VOIDED, "reason"));
  }

  @ParameterizedTest
  @MethodSource("requiredFields")
  void aMissingRequiredFieldIsRefusedNamingIt(EventType type, String field) {
    ObjectNode missing = tree(golden(type));
    missing.remove(field);
    ObjectNode asNull = tree(golden(type));
    asNull.putNull(field);

    for (ObjectNode json : List.of(missing, asNull)) {
      assertThatThrownBy(() -> EventCodec.fromJson(type, json.toString()))
          .isInstanceOf(MalformedEventException.class)
          .hasMessage(type.wireName() + " payload has no " + field)
          .satisfies(
              e -> {
                assertThat(((MalformedEventException) e).field()).isEqualTo(field);
                assertThat(((MalformedEventException) e).type()).isEqualTo(type);
              });
    }
  }

  @Test
  void aBlankTextFieldCountsAsMissingAsBillingAlwaysHeld() {
    assertReadingChanged(EventType.ORDER_PLACED, j -> j.put("customerId", " "), OrderPlacedV1.class)
        .isInstanceOf(MalformedEventException.class)
        .hasMessage("OrderPlaced payload has no customerId");
  }

  @Test
  void aFieldOfTheWrongFormIsRefusedNamingIt() {
    assertReadingChanged(EventType.ORDER_PLACED, j -> j.put("orderId", "o-1"), OrderPlacedV1.class)
        .isInstanceOf(MalformedEventException.class)
        .hasMessageStartingWith("OrderPlaced payload has a malformed orderId: ")
        .extracting(e -> ((MalformedEventException) e).field())
        .isEqualTo("orderId");

    assertReadingChanged(EventType.ORDER_PLACED, j -> j.put("total", "twelve"), OrderPlacedV1.class)
        .hasMessageStartingWith("OrderPlaced payload has a malformed total: ");

    assertReadingChanged(
            EventType.ORDER_CANCELLED,
            j -> j.put("cancelledAt", "yesterday"),
            OrderCancelledV1.class)
        .hasMessageStartingWith("OrderCancelled payload has a malformed cancelledAt: ");

    assertReadingChanged(
            EventType.ORDER_PLACED,
            j -> ((ObjectNode) ((ArrayNode) j.get("lines")).get(1)).remove("sku"),
            OrderPlacedV1.class)
        .isInstanceOf(MalformedEventException.class)
        .hasMessage("OrderPlaced payload has no lines[1].sku")
        .extracting(e -> ((MalformedEventException) e).field())
        .isEqualTo("lines[1].sku");

    assertReadingChanged(EventType.INVOICE_ISSUED, j -> j.put("number", -3), InvoiceIssuedV1.class)
        .hasMessage("InvoiceIssued payload has a malformed number: -3 is less than 1");
  }

  @Test
  void aPayloadThatIsNoEventIsRefused() {
    assertThatThrownBy(() -> EventCodec.fromJson(EventType.INVOICE_ISSUED, "not json"))
        .isInstanceOf(MalformedEventException.class)
        .hasMessageStartingWith("InvoiceIssued payload is not JSON: ")
        .extracting(e -> ((MalformedEventException) e).field())
        .isNull();
    assertThatThrownBy(() -> EventCodec.fromJson(EventType.ORDER_PLACED, "[1,2]"))
        .isInstanceOf(MalformedEventException.class)
        .hasMessageStartingWith("OrderPlaced payload is not a JSON object of its fields: ");
    assertThatThrownBy(() -> EventCodec.fromJson(EventType.ORDER_PLACED, new byte[0]))
        .isInstanceOf(MalformedEventException.class)
        .hasMessage("OrderPlaced payload is not JSON: no content");
  }

  @Test
  void channelIsReadAsBillingAlwaysReadIt() {
    ObjectNode absent = tree(golden(EventType.ORDER_PLACED));
    absent.remove("channel");
    ObjectNode unknown = tree(golden(EventType.ORDER_PLACED));
    unknown.put("channel", "web");
    ObjectNode bulk = tree(golden(EventType.ORDER_PLACED));
    bulk.put("channel", "bulk");

    assertThat(EventCodec.fromJson(absent.toString(), OrderPlacedV1.class).channel())
        .isEqualTo(Channel.INTERACTIVE);
    assertThat(EventCodec.fromJson(unknown.toString(), OrderPlacedV1.class).channel())
        .isEqualTo(Channel.INTERACTIVE);
    assertThat(EventCodec.fromJson(bulk.toString(), OrderPlacedV1.class).channel())
        .isEqualTo(Channel.BULK);
  }

  @Test
  void anOrderWithoutTheFieldsNoConsumerNeedsIsStillAnOrder() {
    OrderPlacedV1 read =
        EventCodec.fromJson(
            "{\"orderId\":\"0b9e6f0c-3c1e-4a57-9d3f-2f7a8e5b1c42\",\"customerId\":\"c\","
                + "\"currency\":\"EUR\",\"total\":\"12.50\"}",
            OrderPlacedV1.class);

    assertThat(read)
        .isEqualTo(
            new OrderPlacedV1(
                ORDER, "c", "EUR", Channel.INTERACTIVE, null, new BigDecimal("12.50"), null, null));
    assertThat(read.lines()).isEmpty();
  }

  @Test
  void theRecordsRefuseWhatTheCodecRefuses() {
    assertThatThrownBy(() -> new OrderCancelledV1(null, "r", null))
        .isInstanceOf(MalformedEventException.class)
        .hasMessage("OrderCancelled payload has no orderId");
    assertThatThrownBy(() -> new OrderPlacedV1.Line("A", 0, BigDecimal.ONE))
        .isInstanceOf(MalformedEventException.class)
        .hasMessage("OrderPlaced payload has no quantity");
  }

  /**
   * Asserts on what reading {@code type}'s golden payload as {@code as} throws once {@code change}
   * has changed it.
   */
  static org.assertj.core.api.AbstractThrowableAssert<?, ? extends Throwable> assertReadingChanged(
      EventType type,
      java.util.function.Consumer<ObjectNode> change,
      Class<? extends EventPayload> as) {
    ObjectNode json = tree(golden(type));
    change.accept(json);
    return assertThatThrownBy(() -> EventCodec.fromJson(json.toString(), as));
  }

  static ObjectNode tree(String json) {
    try {
      return (ObjectNode) new ObjectMapper().readTree(json);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
