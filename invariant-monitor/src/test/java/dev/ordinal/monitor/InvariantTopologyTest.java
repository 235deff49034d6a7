package dev.ordinal.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordinal.contracts.EventType;
import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.kafka.HeaderFormat;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The topology on {@link TopologyTestDriver}. Orders and invoices are named ({@code o-1}, {@code
 * inv-1}) and travel as the UUIDs {@link TestEvents#id} gives those names.
 */
class InvariantTopologyTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration DEADLINE = Duration.ofMinutes(5);
  private static final Duration GRACE = Duration.ofMinutes(2);
  private static final Duration TICK = Duration.ofSeconds(10);
  private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

  @TempDir Path stateDir;

  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
  private TopologyTestDriver driver;
  private TestInputTopic<String, String> orders;
  private TestInputTopic<String, String> bulkOrders;
  private TestInputTopic<String, String> invoices;
  private TestOutputTopic<String, String> alerts;

  @BeforeEach
  void setUp() {
    MonitorConfig config = new MonitorConfig("t", DEADLINE, GRACE, TICK, "monitor-test");
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "monitor-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    driver = new TopologyTestDriver(InvariantTopology.build(config, meters), props, START);
    StringSerializer s = new StringSerializer();
    orders = driver.createInputTopic("t.order", s, s);
    bulkOrders = driver.createInputTopic("t.order-bulk", s, s);
    invoices = driver.createInputTopic("t.invoice", s, s);
    alerts =
        driver.createOutputTopic("t.alerts", new StringDeserializer(), new StringDeserializer());
  }

  @AfterEach
  void tearDown() {
    driver.close();
  }

  @Test
  void tenOrdersEachInvoicedOnceNumbersOneToTenRaiseNoAlert() {
    for (int i = 1; i <= 10; i++) {
      placed(orders, "o-" + i);
      invoice("o-" + i, "inv-" + i, "A", i);
    }
    assertNoAlertAfter(DEADLINE.plus(GRACE).multipliedBy(2));
    // one counter per kind from the start, each at 0
    assertThat(meters.find("ordinal.monitor.alerts").counters())
        .hasSize(AlertKind.values().length)
        .allSatisfy(c -> assertThat(c.count()).isZero());
  }

  @Test
  void anOrderWithoutInvoiceIsReportedOnceAfterTheDeadlineNotBefore() {
    placed(bulkOrders, "o-1");
    placed(orders, "o-2");
    invoice("o-2", "inv-2", "A", 1);

    assertNoAlertAfter(DEADLINE.minus(TICK));

    driver.advanceWallClockTime(TICK.multipliedBy(2));
    JsonNode alert = onlyAlert("MISSING_INVOICE");
    assertThat(alert.get("orderId").asText()).isEqualTo(TestEvents.id("o-1").toString());

    assertNoAlertAfter(DEADLINE.multipliedBy(3));
    assertThat(meters.counter("ordinal.monitor.alerts", "kind", "MISSING_INVOICE").count())
        .isEqualTo(1.0);
  }

  @Test
  void aCancelledOrderNeedsNoInvoice() {
    placed(orders, "o-1");
    event(orders, "o-1", EventType.ORDER_CANCELLED, TestEvents.cancelled("o-1"));

    assertNoAlertAfter(DEADLINE.multipliedBy(2));
  }

  @Test
  void fiveDeliveriesOfTheSameMessagesRaiseNothing() {
    String placedId = UUID.randomUUID().toString();
    String invoiceId = UUID.randomUUID().toString();
    for (int delivery = 0; delivery < 5; delivery++) {
      send(
          orders,
          "o-1",
          EventType.ORDER_PLACED.wireName(),
          placedId,
          TestEvents.placed("o-1", "A"));
      send(
          invoices,
          "o-1",
          EventType.INVOICE_ISSUED.wireName(),
          invoiceId,
          TestEvents.issued("o-1", "inv-1", "A", 1));
    }
    assertNoAlertAfter(DEADLINE.plus(GRACE).multipliedBy(2));
  }

  /** Events a relay wrote with {@code --headers cloudevents} are read as Ordinal's own. */
  @Test
  void eventsInCloudEventsFormAreReadDedupedAndChecked() {
    String placedId = UUID.randomUUID().toString();
    String invoiceId = UUID.randomUUID().toString();
    for (int delivery = 0; delivery < 3; delivery++) {
      cloudEvent(orders, "o-1", EventType.ORDER_PLACED, placedId, TestEvents.placed("o-1", "A"));
      cloudEvent(
          invoices,
          "o-1",
          EventType.INVOICE_ISSUED,
          invoiceId,
          TestEvents.issued("o-1", "inv-1", "A", 1));
    }
    cloudEvent(
        orders,
        "o-2",
        EventType.ORDER_PLACED,
        UUID.randomUUID().toString(),
        TestEvents.placed("o-2", "A"));
    driver.advanceWallClockTime(DEADLINE.plus(TICK.multipliedBy(2)));
    JsonNode alert = onlyAlert("MISSING_INVOICE");
    assertThat(alert.get("orderId").asText()).isEqualTo(TestEvents.id("o-2").toString());
  }

  private void cloudEvent(
      TestInputTopic<String, String> topic,
      String order,
      EventType type,
      String messageId,
      String payload) {
    send(topic, order, type.wireName(), messageId, payload, HeaderFormat.CLOUDEVENTS);
  }

  @Test
  void theSameInvoiceReSentUnderANewMessageIdIsNotASecondInvoice() {
    placed(orders, "o-1");
    invoice("o-1", "inv-1", "A", 1);
    invoice("o-1", "inv-1", "A", 1);

    assertNoAlertAfter(DEADLINE.multipliedBy(2));
  }

  @Test
  void twoInvoicesForOneOrderAreReportedOnce() {
    placed(orders, "o-1");
    invoice("o-1", "inv-1", "A", 1);
    invoice("o-1", "inv-2", "A", 2);
    invoice("o-1", "inv-3", "A", 3);

    JsonNode alert = onlyAlert("DUPLICATE_INVOICE");
    assertThat(alert.get("orderId").asText()).isEqualTo(TestEvents.id("o-1").toString());
    assertThat(alert.get("invoiceIds")).hasSize(2);
    assertThat(meters.counter("ordinal.monitor.alerts", "kind", "DUPLICATE_INVOICE").count())
        .isEqualTo(1.0);
  }

  @Test
  void oneNumberIssuedForTwoInvoicesIsReportedOnce() {
    placed(orders, "o-1");
    placed(orders, "o-2");
    placed(orders, "o-3");
    invoice("o-1", "inv-1", "A", 1);
    invoice("o-2", "inv-2", "A", 1);
    invoice("o-3", "inv-3", "A", 1);

    JsonNode alert = onlyAlert("DUPLICATE_NUMBER");
    assertThat(alert.get("series").asText()).isEqualTo("A");
    assertThat(alert.get("from").asLong()).isEqualTo(1);
    assertThat(alert.get("invoiceIds").toString())
        .contains(TestEvents.id("inv-1").toString(), TestEvents.id("inv-2").toString());
    assertThat(alerts.readRecordsToList()).isEmpty();
  }

  @Test
  void theSameNumberInTwoSeriesIsNoDuplicate() {
    invoice("o-1", "inv-1", "A", 1);
    invoice("o-2", "inv-2", "B", 1);

    assertThat(alerts.readRecordsToList()).isEmpty();
  }

  @Test
  void numbersThreeAndFourMissingPastGraceAreOneGapReportedOnce() {
    for (int n : new int[] {1, 2, 5}) {
      placed(orders, "o-" + n);
      invoice("o-" + n, "inv-" + n, "A", n);
    }
    assertNoAlertAfter(GRACE.minus(TICK));

    driver.advanceWallClockTime(TICK.multipliedBy(2));
    JsonNode gap = onlyAlert("GAP");
    assertThat(alerts.readRecordsToList()).isEmpty();
    assertThat(gap.get("series").asText()).isEqualTo("A");
    assertThat(gap.get("from").asLong()).isEqualTo(3);
    assertThat(gap.get("to").asLong()).isEqualTo(4);

    placed(orders, "o-3");
    invoice("o-3", "inv-3", "A", 3); // half filled late: no second alert for the rest
    assertNoAlertAfter(GRACE.multipliedBy(3));
    assertThat(meters.counter("ordinal.monitor.alerts", "kind", "GAP").count()).isEqualTo(1.0);
  }

  @Test
  void aVoidedNumberIsAccountedForAndItsCancelledOrderNeedsNoInvoice() {
    for (int n : new int[] {1, 3}) {
      placed(orders, "o-" + n);
      invoice("o-" + n, "inv-" + n, "A", n);
    }
    // order 2 was cancelled after its number was reserved; the series voids it
    placed(orders, "o-2");
    event(orders, "o-2", EventType.ORDER_CANCELLED, TestEvents.cancelled("o-2"));
    send(
        invoices,
        "o-2",
        EventType.INVOICE_VOIDED.wireName(),
        UUID.randomUUID().toString(),
        TestEvents.voided("o-2", "inv-2", "A", 2, "order cancelled: changed mind"));
    assertNoAlertAfter(DEADLINE.plus(GRACE).multipliedBy(2));
  }

  @Test
  void aGapFilledWithinGraceRaisesNothing() {
    for (int n : new int[] {1, 2, 5, 3, 4}) {
      placed(orders, "o-" + n);
      invoice("o-" + n, "inv-" + n, "A", n);
      driver.advanceWallClockTime(GRACE.dividedBy(4));
    }
    assertNoAlertAfter(GRACE.multipliedBy(3));
  }

  @Test
  void outOfOrderArrivalInvoiceBeforeOrderAndFiveBeforeFourRaisesNothing() {
    invoice("o-1", "inv-1", "A", 1);
    invoice("o-2", "inv-2", "A", 2);
    invoice("o-3", "inv-3", "A", 3);
    invoice("o-5", "inv-5", "A", 5);
    driver.advanceWallClockTime(TICK);
    invoice("o-4", "inv-4", "A", 4);
    for (int n = 5; n >= 1; n--) {
      placed(orders, "o-" + n); // every OrderPlaced after its invoice
    }
    assertNoAlertAfter(DEADLINE.plus(GRACE).multipliedBy(2));
  }

  @Test
  void aLateInvoiceAfterTheAlertRaisesNothingMore() {
    placed(orders, "o-1");
    driver.advanceWallClockTime(DEADLINE.plus(TICK.multipliedBy(2)));
    assertThat(readAlerts())
        .extracting(a -> a.get("kind").asText())
        .containsExactly("MISSING_INVOICE");

    invoice("o-1", "inv-1", "A", 1);
    assertNoAlertAfter(DEADLINE.multipliedBy(2));
  }

  @Test
  void unknownEventTypesAndUnreadablePayloadsAreSkipped() {
    send(orders, "o-1", "OrderShipped", UUID.randomUUID().toString(), TestEvents.cancelled("o-1"));
    send(
        invoices,
        "o-2",
        EventType.INVOICE_ISSUED.wireName(),
        UUID.randomUUID().toString(),
        "not json");
    // not the contract's OrderPlaced (no currency): skipped, so never reported as uninvoiced
    send(
        orders,
        "o-3",
        EventType.ORDER_PLACED.wireName(),
        UUID.randomUUID().toString(),
        TestEvents.placed("o-3", "A").replace("\"currency\":\"EUR\",", ""));
    assertNoAlertAfter(DEADLINE.multipliedBy(2));
  }

  @Test
  void configRejectsAnIntervalLongerThanTheDeadline() {
    assertThatThrownBy(
            () ->
                new MonitorConfig("t", Duration.ofSeconds(5), GRACE, Duration.ofSeconds(10), "app"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageContaining("lower the interval");
    assertThatThrownBy(() -> new MonitorConfig(" ", DEADLINE, GRACE, TICK, "app"))
        .hasMessage("--prefix must be letters, digits, '.', '_' or '-', not  ");
    assertThatThrownBy(() -> new MonitorConfig("t", Duration.ZERO, GRACE, TICK, "app"))
        .hasMessage("--deadline must be positive, not PT0S");
  }

  private void placed(TestInputTopic<String, String> topic, String order) {
    event(topic, order, EventType.ORDER_PLACED, TestEvents.placed(order, "A"));
  }

  /** {@code payload}, an event of {@code type} about {@code order}, under a new message id. */
  private void event(
      TestInputTopic<String, String> topic, String order, EventType type, String payload) {
    send(topic, order, type.wireName(), UUID.randomUUID().toString(), payload);
  }

  private void invoice(String order, String invoice, String series, long number) {
    send(
        invoices,
        order,
        EventType.INVOICE_ISSUED.wireName(),
        UUID.randomUUID().toString(),
        TestEvents.issued(order, invoice, series, number));
  }

  /** A record keyed by the id of the order named {@code order}, as the producers key them. */
  private void send(
      TestInputTopic<String, String> topic,
      String order,
      String eventType,
      String messageId,
      String payload) {
    send(topic, order, eventType, messageId, payload, HeaderFormat.ORDINAL);
  }

  /** The same, its headers in {@code format}. */
  private void send(
      TestInputTopic<String, String> topic,
      String order,
      String eventType,
      String messageId,
      String payload,
      HeaderFormat format) {
    RecordHeaders headers = new RecordHeaders();
    format.write(
        headers,
        new HeaderFormat.Event(messageId, eventType, "order", order, START.toString(), null, null),
        "/ordinal/test");
    topic.pipeInput(new TestRecord<>(TestEvents.id(order).toString(), payload, headers, START));
  }

  /** Lets {@code d} pass on the wall clock; no alert is raised meanwhile. */
  private void assertNoAlertAfter(Duration d) {
    driver.advanceWallClockTime(d);
    assertThat(alerts.readRecordsToList()).isEmpty();
  }

  /** The one alert raised so far, of {@code kind}. */
  private JsonNode onlyAlert(String kind) {
    List<JsonNode> raised = readAlerts();
    assertThat(raised).hasSize(1);
    JsonNode alert = raised.get(0);
    assertThat(alert.get("kind").asText()).isEqualTo(kind);
    return alert;
  }

  private List<JsonNode> readAlerts() {
    return alerts.readValuesToList().stream()
        .map(
            v -> {
              try {
                return JSON.readTree(v);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            })
        .toList();
  }
}
