package dev.ordinal.ops.lag;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.slot.SlotReading;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** A lag report as text and as JSON, from one report: every figure, unknowns shown as such. */
class LagOutputTest {
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
        List.of(
            new SlotReading(
                "ordinal_outbox",
                "pgoutput",
                true,
                5 * 1024L,
                3 * 1024L,
                "0/16B3748",
                "reserved",
                null)));
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
                "  REPLICATION SLOT  ACTIVE  WAL KEPT  UNCONFIRMED  WAL STATUS  CONFIRMED",
                "  ordinal_outbox    yes      5.0 KiB      3.0 KiB  reserved    0/16B3748",
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
                + "\"restartLagBytes\":5120,\"confirmedLagBytes\":3072,"
                + "\"confirmedFlushLsn\":\"0/16B3748\",\"walStatus\":\"reserved\","
                + "\"safeWalBytes\":null}]}");
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
