package dev.ordinal.lab.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The text and the JSON are two renderings of one record: every figure of one is in the other, and
 * the exit status follows from the verdicts.
 */
class DemoSummaryTest {
  /** A number standing alone: not part of a word ({@code p50}, {@code F2026-A}, {@code -9}). */
  static final Pattern NUMBER = Pattern.compile("(?<![A-Za-z0-9_-])\\d+(?:\\.\\d+)?");

  /** Fault fields in milliseconds that the text shows in seconds. */
  static final Set<String> SHOWN_IN_SECONDS = Set.of("outageMs", "allReadyAfterMs", "readyAfterMs");

  static final ObjectMapper JSON = new ObjectMapper();

  /** The JSON's keys: those docs/DEMO.md names, and every figure of the text. */
  static final List<String> DOCUMENTED_KEYS =
      List.of(
          "orders",
          "interactiveOrders",
          "bulkOrders",
          "failedRequests",
          "cancelled",
          "idempotentRetries",
          "idempotentMismatches",
          "idempotentRetriesFailed",
          "outboxRows",
          "outboxMissing",
          "relayed",
          "records",
          "redelivered",
          "republished",
          "duplicatesNotSent",
          "duplicatesSkipped",
          "distinctMessageIds",
          "inboxRows",
          "invoices",
          "issued",
          "invoicesCancelled",
          "invoicesVoided",
          "charges",
          "gatewayCharges",
          "refunded",
          "neverCharged",
          "integratorCalls",
          "integratorAccepted",
          "integratorTransientFailures",
          "integratorDroppedAfterAccept",
          "integratorDuplicateAttempts",
          "lateAccepts",
          "integratorDisagrees",
          "maxSameSeriesInFlight",
          "chaos",
          "cancelledBeforePlaced",
          "cancelledBeforePlacedBroken",
          "relayKills",
          "billingKills",
          "faults",
          "notAttempted",
          "maxInFlight",
          "offeredRate",
          "driveSeconds",
          "settled",
          "notSettled",
          "series",
          "commitToAppliedMs",
          "commitToIssuedMs",
          "invariants",
          "broken",
          "logs",
          "ok");

  /** A failed chaos run whose figures all differ from each other, so none stands in for another. */
  static DemoSummary everyFigureDistinct() {
    Map<String, Boolean> invariants = new LinkedHashMap<>();
    for (Invariant i : Invariant.values()) {
      invariants.put(i.key(), i != Invariant.GAPLESS_UNIQUE_NUMBERS);
    }
    Map<String, Double> relayRestarts = new LinkedHashMap<>();
    relayRestarts.put("relay-orders", 7.0);
    Map<String, Double> billingRestarts = new LinkedHashMap<>();
    billingRestarts.put("inbox-consumer", 9.0);
    billingRestarts.put("payment-collector", 11.0);
    Map<String, DemoSummary.Series> series = new LinkedHashMap<>();
    series.put("F2026-A", new DemoSummary.Series(9001, 9002, true, 0, 0));
    series.put("F2026-B", new DemoSummary.Series(9003, 9004, false, 9005, 9006));
    return new DemoSummary(
        new DemoSummary.Placing(1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008),
        new DemoSummary.Messages(2001, 2002, 2003, 2004, 2005, 2006, 2007, 2008, 2009, 2010),
        new DemoSummary.Billing(3001, 3002, 3003, 3004, 3005, 3006, 3007, 3008),
        new DemoSummary.Integrator(4001, 4002, 4003, 4004, 4005, 4006, 4007, 4008),
        new DemoSummary.Injected(
            true,
            5001,
            5002,
            5003,
            5004,
            List.of(
                new DemoSummary.Fault(
                    "KAFKA_DOWN",
                    "Kafka broker down 5 s",
                    "",
                    5100,
                    7200,
                    List.of(
                        new DemoSummary.Service("relay", true, false, true, 7300, relayRestarts),
                        new DemoSummary.Service("billing-1", false, true, false, 7400, null))),
                new DemoSummary.Fault(
                    "KILL_BILLING",
                    "kill -9 of a billing instance",
                    "billing-2",
                    8100,
                    8200,
                    List.of(
                        new DemoSummary.Service(
                            "billing-2", true, true, true, 8300, billingRestarts))))),
        new DemoSummary.Pace(6001, 6002, 6003, 6004),
        false,
        "within 120 s: | unrelayed 12, invoices 13/14",
        series,
        new DemoSummary.Lanes(
            new DemoSummary.Latency(10001, 10002, 10003, 10004),
            new DemoSummary.Latency(10011, 10012, 10013, 10014)),
        new DemoSummary.Lanes(
            new DemoSummary.Latency(10021, 10022, 10023, 10024),
            new DemoSummary.Latency(10031, 10032, 10033, 10034)),
        invariants,
        Map.of("gapless_unique_numbers", "series F2026-B: 15..16 missing"),
        "/home/demo/.ordinal/logs",
        false);
  }

  @Test
  void everyFigureOfTheJsonIsInTheTextAndEveryFigureOfTheTextIsInTheJson() throws Exception {
    DemoSummary summary = everyFigureDistinct();
    String text = summary.text();
    JsonNode json = JSON.readTree(summary.json());
    Set<String> inText = numbers(text.replace("numbers 1..", "numbers .."));

    List<String> jsonNumbers = new ArrayList<>();
    List<String> jsonWords = new ArrayList<>();
    leaves(json, "", jsonNumbers, jsonWords);

    // the JSON's figures, each in the text (zero counts and the -1 sentinel read as words there)
    for (String figure : jsonNumbers) {
      assertThat(inText)
          .as("figure %s of the JSON in the text:%n%s", figure, text)
          .contains(figure.substring(figure.indexOf('=') + 1));
    }
    for (String word : jsonWords) {
      assertThat(text).as("%s of the JSON in the text", word).contains(word);
    }
    // the text's figures, each in the JSON
    Set<String> inJson = new HashSet<>();
    jsonNumbers.forEach(f -> inJson.add(f.substring(f.indexOf('=') + 1)));
    jsonWords.forEach(w -> inJson.addAll(numbers(w)));
    assertThat(inJson).as("the text's figures in the JSON %s", summary.json()).containsAll(inText);
    assertThat(jsonNumbers).as("figures compared").hasSize(74);
  }

  /** Collects every leaf: numbers as {@code path=text rendering}, strings and keys as words. */
  private static void leaves(JsonNode n, String path, List<String> numbers, List<String> words) {
    if (n.isObject()) {
      n.properties()
          .forEach(
              e -> {
                if (path.endsWith("series")
                    || path.endsWith("invariants")
                    || path.endsWith("broken")
                    || path.endsWith("restarts")) {
                  words.add(e.getKey());
                }
                leaves(e.getValue(), path + "." + e.getKey(), numbers, words);
              });
    } else if (n.isArray()) {
      for (int i = 0; i < n.size(); i++) {
        leaves(n.get(i), path + "[" + i + "]", numbers, words);
      }
    } else if (n.isNumber()) {
      long v = n.asLong();
      if (v == 0 || v == -1) {
        return;
      }
      String field = path.substring(path.lastIndexOf('.') + 1);
      String shown =
          SHOWN_IN_SECONDS.contains(field)
              ? SummaryText.seconds(v).replace(" s", "")
              : Long.toString(v);
      numbers.add(path + "=" + shown);
    } else if (n.isTextual()) {
      words.add(
          path.endsWith(".kind") ? FaultInjector.Kind.valueOf(n.asText()).description : n.asText());
    }
  }

  private static Set<String> numbers(String text) {
    Set<String> found = new HashSet<>();
    Matcher m = NUMBER.matcher(text);
    while (m.find()) {
      found.add(m.group());
    }
    return found;
  }

  @Test
  void everyYesOrNoOfTheJsonShowsAsItsWordInTheText() throws Exception {
    DemoSummary summary = everyFigureDistinct();
    String text = summary.text();
    JsonNode json = JSON.readTree(summary.json());

    json.get("invariants")
        .properties()
        .forEach(
            e ->
                assertThat(text)
                    .containsPattern(
                        "  "
                            + e.getKey()
                            + " +"
                            + (e.getValue().asBoolean() ? "held\n" : "BROKEN: ")));
    assertThat(json.get("settled").asBoolean()).isFalse();
    assertThat(text).contains("  NOT SETTLED within 120 s: | unrelayed 12, invoices 13/14\n");
    assertThat(json.get("ok").asBoolean()).isFalse();
    assertThat(text)
        .endsWith("FAILED: see the counts above; the logs are in /home/demo/.ordinal/logs\n");
    assertThat(json.get("chaos").asBoolean()).isTrue();
    assertThat(text).contains("  out of order ", "  late accepts ");
    assertThat(text)
        .contains(
            "  series F2026-A            9001  numbers 1..9002, gap audit clean (no gap, no duplicate)\n")
        .contains(
            "  series F2026-B            9003  numbers 1..9004, 9005 gaps, 9006 duplicates\n");
    assertThat(text)
        .contains(
            "      per service: relay (hit by it, went unready) ready after 7.3 s; billing-1 ready"
                + " after 7.4 s\n")
        .contains("      per service: billing-2 (hit by it, went unready) ready after 8.3 s\n")
        .contains(
            "; loop restarts: relay NOT RUNNING, relay relay-orders +7, billing-1 unknown (no"
                + " /metrics)\n");
    assertThat(json.get("faults").get(0).get("services").get(1).get("restarts").isNull()).isTrue();
  }

  @Test
  void theJsonIsOneLineWithTheDocumentedKeys() throws Exception {
    String line = everyFigureDistinct().json();
    assertThat(line).doesNotContain("\n");
    List<String> keys = new ArrayList<>();
    JSON.readTree(line).fieldNames().forEachRemaining(keys::add);
    assertThat(keys).containsExactlyElementsOf(DOCUMENTED_KEYS);
    JsonNode fault = JSON.readTree(line).get("faults").get(0);
    List<String> faultKeys = new ArrayList<>();
    fault.fieldNames().forEachRemaining(faultKeys::add);
    assertThat(faultKeys)
        .containsExactly(
            "kind", "description", "detail", "outageMs", "allReadyAfterMs", "services");
    List<String> serviceKeys = new ArrayList<>();
    fault.get("services").get(0).fieldNames().forEachRemaining(serviceKeys::add);
    assertThat(serviceKeys)
        .containsExactly("name", "dependent", "alive", "wentUnready", "readyAfterMs", "restarts");
    List<String> latencyKeys = new ArrayList<>();
    JSON.readTree(line)
        .get("commitToIssuedMs")
        .get("bulk")
        .fieldNames()
        .forEachRemaining(latencyKeys::add);
    assertThat(latencyKeys).containsExactly("count", "p50", "p99", "max");
  }

  /** The evidence of a good run ({@link InvariantChecksTest.Run}), without chaos. */
  static DemoSummary good(String notSettled, Evidence e) {
    return DemoSummary.of(
        e,
        InvariantChecks.check(e),
        new DemoSummary.Run(1, 0, 1, 0, 0, 64, 0, 60, false, List.of()),
        new DemoSummary.Lanes(
            new DemoSummary.Latency(2, 80, 300, 310), new DemoSummary.Latency(1, 70, 70, 70)),
        new DemoSummary.Lanes(
            new DemoSummary.Latency(2, 250, 600, 620), new DemoSummary.Latency(0, 0, 0, 0)),
        notSettled,
        "/home/demo/.ordinal/logs");
  }

  @Test
  void aGoodRunPrintsTheDocumentedLinesAndExitsZero() {
    DemoSummary summary = good(null, new InvariantChecksTest.Run().evidence());

    assertThat(summary.text().lines())
        .containsExactly(
            "Summary",
            "  orders placed                3  in 60 s (2 interactive, 1 bulk; 0 failed requests)",
            "  idempotent retries           1  (same Idempotency-Key, same order: yes)",
            "  cancelled                    1",
            "  outbox rows                  4  (written in the order's transaction; 0 not on Kafka)",
            "  relayed message ids          4  (Debezium -> Kafka, acks=all; 10 records on the"
                + " topics)",
            "  injected duplicates          1  redelivered (same id), 1 re-published (new id)",
            "  duplicates skipped           1  (billing's inbox conflicts, from each instance's"
                + " /metrics; at least the 1 redelivered; relay re-sends after a crash included)",
            "  inbox rows                   7  (one per distinct message id: 7)",
            "  invoices                     3  (3 issued, 0 cancelled before issue, 0 voided)",
            "  charges                      3  (gateway holds 3 for these orders; 1 refunded, 0"
                + " never charged after a cancellation)",
            "  integrator                   5  calls for 3 issued invoices (3 accepted, 1 transient"
                + " failures, 1 answers dropped after accepting, 0 numbers offered twice)",
            "  series F2026-A               3  numbers 1..2, gap audit clean (no gap, no"
                + " duplicate)",
            "  series F2026-B               1  numbers 1..1, gap audit clean (no gap, no"
                + " duplicate)",
            "  same-series integrator calls in flight at once: up to 2",
            "  commit -> applied       interactive p50 80 ms, p99 300 ms, max 310 ms (2 orders)",
            "                          bulk        p50 70 ms, p99 70 ms, max 70 ms (1 orders)",
            "  commit -> issued        interactive p50 250 ms, p99 600 ms, max 620 ms (2 orders)",
            "                          bulk        no samples",
            "",
            "Invariants (DESIGN.md)",
            "  no_lost_event                      held",
            "  no_phantom_event                   held",
            "  order_per_aggregate                held",
            "  effectively_once                   held",
            "  one_invoice_one_charge_per_order   held",
            "  gapless_unique_numbers             held",
            "  no_lock_across_network_io          held",
            "",
            "OK: every order was relayed, invoiced, numbered and charged exactly once, through"
                + " duplicates; every series is gapless.");
    assertThat(summary.exitStatus()).isZero();
  }

  @Test
  void aBrokenInvariantOrARunThatDidNotSettleExitsOne() {
    InvariantChecksTest.Run broken = new InvariantChecksTest.Run();
    broken.maxSameSeriesInFlight = 1;
    DemoSummary brokenRun = good(null, broken.evidence());
    DemoSummary unsettled =
        good("within 120 s: | unrelayed 1", new InvariantChecksTest.Run().evidence());

    assertThat(brokenRun.exitStatus()).isEqualTo(1);
    assertThat(brokenRun.ok()).isFalse();
    assertThat(brokenRun.settled()).isTrue();
    assertThat(brokenRun.invariants()).containsEntry("no_lock_across_network_io", false);
    assertThat(brokenRun.broken())
        .containsExactly(
            Map.entry(
                "no_lock_across_network_io",
                "at most 1 submission of one series was in flight at once: the calls never"
                    + " overlapped"));
    assertThat(unsettled.exitStatus()).isEqualTo(1);
    assertThat(unsettled.settled()).isFalse();
    assertThat(unsettled.invariants().values()).containsOnly(true);
  }
}
