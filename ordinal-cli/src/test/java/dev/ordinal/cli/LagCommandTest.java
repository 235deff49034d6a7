package dev.ordinal.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.ops.lag.GroupLag;
import dev.ordinal.ops.lag.GroupMember;
import dev.ordinal.ops.lag.LagReport;
import dev.ordinal.ops.lag.LagSnapshot;
import dev.ordinal.ops.lag.LagStatus;
import dev.ordinal.ops.lag.LagStatusConfig;
import dev.ordinal.ops.lag.PartitionKey;
import dev.ordinal.ops.lag.PartitionLag;
import dev.ordinal.ops.lag.SlotLag;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Bad input to {@code ./ordinal lag} is one sentence and exit 2, before Kafka is asked. */
class LagCommandTest extends CommandTest {
  private int run(Map<String, String> env, String... args) {
    LagCommand command = new LagCommand();
    command.env = env;
    command.kafkaTimeout = Duration.ofSeconds(1);
    return execute(command, args);
  }

  /** A bootstrap address nothing listens on: never reached, the options are refused first. */
  static final Map<String, String> KAFKA = Map.of("ORDINAL_KAFKA_BOOTSTRAP", "localhost:1");

  @Test
  void withoutAnExternalKafkaItRefusesInOneSentence() {
    assertThat(run(Map.of())).isEqualTo(2);
    assertThat(err.toString())
        .isEqualTo(
            "ordinal: lag reads the consumer groups of a running Kafka cluster: set"
                + " ORDINAL_KAFKA_BOOTSTRAP=host:port (or kafka.bootstrap in the ORDINAL_CONFIG"
                + " file)."
                + System.lineSeparator());
    assertThat(out.toString()).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "--interval PT1S|--interval only applies with --watch: add --watch or drop --interval.",
        "--count 3|--count only applies with --watch: add --watch or drop --count.",
        "--metrics-port 9500|--metrics-port only applies with --watch: add --watch or drop"
            + " --metrics-port.",
        "--watch --interval PT0.01S|--interval must be at least PT0.1S, not PT0.01S.",
        "--watch --window PT2S|--window PT2S must be longer than --interval PT2S, or no two samples"
            + " would ever be compared.",
        "--stall-after PT10M|--stall-after PT10M must be positive and shorter than --window PT5M.",
        "--window PT0S|--window must be positive, not PT0S.",
        "--watch --count 0|--count must be 1 or more, not 0.",
        "--watch --metrics-port 70000|--metrics-port must be 0 to 65535, not 70000.",
      })
  void conflictingOrOutOfRangeOptionsAreOneSentenceAndExitTwo(String args, String sentence) {
    assertThat(run(KAFKA, args.split(" "))).isEqualTo(2);
    assertThat(err.toString()).isEqualTo("ordinal: " + sentence + System.lineSeparator());
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void aBlankGroupIsRefused() {
    assertThat(run(KAFKA, "--group", " ")).isEqualTo(2);
    assertThat(err.toString())
        .isEqualTo(
            "ordinal: --group must name a consumer group, not be blank." + System.lineSeparator());
  }

  @Test
  void aSlotWithoutADatabaseIsRefused() {
    assertThat(run(KAFKA, "--slot", "ordinal_outbox")).isEqualTo(2);
    assertThat(err.toString())
        .startsWith(
            "ordinal: --slot reads the replication slots from PostgreSQL: set ORDINAL_DB_URL");
  }

  @Test
  void anUnparsableTimeNamesTheOptionWithoutAStackTrace() {
    assertThat(run(KAFKA, "--watch", "--interval", "soon")).isEqualTo(2);
    assertThat(err.toString().lines().findFirst().orElseThrow())
        .isEqualTo(
            "Invalid value for option '--interval': 'soon' is not a duration; use e.g. 30s, 2m or"
                + " PT30S");
    assertThat(err.toString()).doesNotContain("Exception").doesNotContain("\tat ");
  }

  @Test
  void anUnreachableKafkaIsOneSentenceNamingTheSetting() {
    assertThat(run(Map.of("ORDINAL_KAFKA_BOOTSTRAP", "localhost:1"), "--group", "billing"))
        .isEqualTo(2);
    assertThat(err.toString())
        .startsWith(
            "ordinal: No Kafka broker answered at localhost:1 (ORDINAL_KAFKA_BOOTSTRAP) within 1 s")
        .doesNotContain("\tat ");
  }

  @Test
  void helpListsTheOptions() {
    assertThat(run(Map.of(), "--help")).isZero();
    assertThat(out.toString())
        .contains("--group", "--topic", "--json", "--watch", "--interval", "--metrics-port");
  }

  static final Instant AT = Instant.parse("2026-03-01T12:00:00Z");

  static LagReport report() {
    PartitionLag p0 =
        PartitionLag.of("ordinal.order", 0, 4L, 10L)
            .withNextRecord(AT.minusSeconds(125), AT)
            .withMember("consumer-1", "billing-1", "/10.0.0.5");
    PartitionLag p1 = PartitionLag.of("ordinal.order", 1, null, 7L);
    GroupLag g =
        new GroupLag(
            "billing",
            "Stable",
            List.of(
                new GroupMember(
                    "consumer-1",
                    "billing-1",
                    "/10.0.0.5",
                    List.of(new TopicPartition("ordinal.order", 0)))),
            List.of(p0, p1));
    return new LagReport(
        new LagSnapshot(AT, List.of(g)),
        LagStatusConfig.defaults(),
        Map.of(
            g.key(p0),
            LagStatus.CATCHING_UP,
            new PartitionKey("billing", "ordinal.order", 1),
            LagStatus.UNKNOWN),
        Map.of("billing", LagStatus.CATCHING_UP),
        List.of(new SlotLag("ordinal_outbox", "pgoutput", true, 3 * 1024L, "0/16B3748")));
  }

  @Test
  void theTextShowsEveryFigureAndTotalsPerGroup() {
    assertThat(LagOutput.text(report()))
        .isEqualTo(
            String.join(
                "\n",
                "Consumer lag at 2026-03-01T12:00:00Z  (status window PT5M, stalled after PT1M)",
                "",
                "GROUP billing  Stable, 1 member  lag 6 records, 2m05s  status CATCHING_UP",
                "  member consumer-1  client billing-1  host /10.0.0.5  partitions 1",
                "  TOPIC          PARTITION  COMMITTED  LOG-END  LAG  LAG-TIME  STATUS       CONSUMER",
                "  ordinal.order          0          4       10    6     2m05s  CATCHING_UP  consumer-1"
                    + " (/10.0.0.5)",
                "  ordinal.order          1          -        7    -         -  UNKNOWN      -",
                "",
                "  REPLICATION SLOT  ACTIVE  WAL HELD BACK  CONFIRMED",
                "  ordinal_outbox    yes           3.0 KiB  0/16B3748",
                ""));
  }

  @Test
  void theJsonIsOneDocumentWithNullsForUnknowns() {
    assertThat(LagOutput.json(report()))
        .isEqualTo(
            "{\"takenAt\":\"2026-03-01T12:00:00Z\",\"window\":\"PT5M\",\"stallAfter\":\"PT1M\","
                + "\"groups\":[{\"group\":\"billing\",\"state\":\"Stable\",\"status\":\"CATCHING_UP\","
                + "\"totalLag\":6,\"maxLagSeconds\":125.0,\"members\":[{\"memberId\":\"consumer-1\","
                + "\"clientId\":\"billing-1\",\"host\":\"/10.0.0.5\",\"assignment\":[\"ordinal.order-0\"]}],"
                + "\"partitions\":[{\"topic\":\"ordinal.order\",\"partition\":0,\"committedOffset\":4,"
                + "\"logEndOffset\":10,\"lag\":6,\"lagSeconds\":125.0,"
                + "\"nextRecordTimestamp\":\"2026-03-01T11:57:55Z\",\"status\":\"CATCHING_UP\","
                + "\"memberId\":\"consumer-1\",\"clientId\":\"billing-1\",\"host\":\"/10.0.0.5\"},"
                + "{\"topic\":\"ordinal.order\",\"partition\":1,\"committedOffset\":null,"
                + "\"logEndOffset\":7,\"lag\":null,\"lagSeconds\":null,\"nextRecordTimestamp\":null,"
                + "\"status\":\"UNKNOWN\",\"memberId\":null,\"clientId\":null,\"host\":null}]}],"
                + "\"slots\":[{\"slot\":\"ordinal_outbox\",\"plugin\":\"pgoutput\",\"active\":true,"
                + "\"lagBytes\":3072,\"confirmedFlushLsn\":\"0/16B3748\"}]}");
  }

  @Test
  void durationsReadAtAGlance() {
    assertThat(LagOutput.duration(Duration.ZERO)).isEqualTo("0s");
    assertThat(LagOutput.duration(Duration.ofMillis(850))).isEqualTo("850ms");
    assertThat(LagOutput.duration(Duration.ofMillis(12_340))).isEqualTo("12.3s");
    assertThat(LagOutput.duration(Duration.ofSeconds(245))).isEqualTo("4m05s");
    assertThat(LagOutput.duration(Duration.ofMinutes(123))).isEqualTo("2h03m");
    assertThat(LagOutput.duration(Duration.ofHours(76))).isEqualTo("3d04h");
  }
}
