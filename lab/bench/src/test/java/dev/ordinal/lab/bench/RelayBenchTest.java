package dev.ordinal.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class RelayBenchTest {
  static final RelayBench.Report REPORT =
      new RelayBench.Report(
          Map.of(
              "server_version", "17.11",
              "fsync", "on",
              "synchronous_commit", "on",
              "full_page_writes", "on",
              "wal_writer_delay", "10ms"),
          RelayBench.Settings.DEFAULT,
          List.of(
              new RelayBench.InsertRate(
                  "outbox insert, single-row commits",
                  1,
                  3_000,
                  List.of(2_000.0, 3_000.0, 3_100.0)),
              new RelayBench.InsertRate(
                  "outbox insert, multi-row commits (50 rows/tx)",
                  50,
                  16_000,
                  List.of(15_000.0, 16_000.0, 17_000.0))),
          new RelayBench.Throughput(
              8_000, 12_000, 1_000, 60_000, 20_000, Duration.ofSeconds(3), true),
          new DatabaseLoad.Rate(0.5, 0.1, 2.0),
          List.of(
              new RelayBench.RelayRun(
                  "CDC 1",
                  200,
                  false,
                  3_000,
                  0,
                  0,
                  8,
                  20,
                  30,
                  new DatabaseLoad.Rate(2.5, 0.4, 9.0),
                  55.5,
                  null),
              new RelayBench.RelayRun(
                  "CDC 1", 1000, false, 15_000, 0, 0, 9, 32, 50, null, null, null),
              new RelayBench.RelayRun(
                  "CDC 10",
                  200,
                  true,
                  3_000,
                  0,
                  0,
                  10,
                  40,
                  60,
                  new DatabaseLoad.Rate(2.5, 0.4, 3.0),
                  8.0,
                  new RelayBench.Split(7.5, 30.0, 2.5, 9.0, 30, 33.0, 7.5)),
              new RelayBench.RelayRun(
                  "polling 500",
                  200,
                  false,
                  3_000,
                  0,
                  0,
                  270,
                  520,
                  540,
                  new DatabaseLoad.Rate(6.5, 0.5, 2.5),
                  null,
                  null),
              new RelayBench.RelayRun(
                  "polling 50",
                  200,
                  false,
                  3_000,
                  2,
                  0,
                  40,
                  70,
                  80,
                  new DatabaseLoad.Rate(40.5, null, 2.0),
                  null,
                  null)),
          List.of(
              new RelayBench.Capacity(
                  "shared",
                  10_000,
                  List.of(
                      new RelayBench.CapacityStep(2_000, 1_990, 0, 150, true),
                      new RelayBench.CapacityStep(4_000, 3_980, 10, 9_000, false)))),
          List.of("a note"));

  @Test
  void ratiosAreToTheMultiRowInsertRateAndToTheCdcP99WithTheirGoalsBeside() {
    String md = String.join("\n", RelayReport.markdown(REPORT, "embedded", "2026-11-29T20:00Z"));
    assertThat(md)
        .contains("fsync=on, synchronous_commit=on, full_page_writes=on")
        .contains("| outbox insert, single-row commits | 3,000 | 0.19 |")
        .contains("| outbox insert, multi-row commits (50 rows/tx) | 16,000 | 1.00 |")
        .contains("| 8,000 | 0.50 | goal: >= 0.9 |")
        .contains("| 20,000 | 1.25 |")
        .contains(
            "| CDC 1 | 200 | 8.0 | 20.0 | 30.0 | 0.5x | goal: p99 <= 15 ms | 3,000 | +2.0 | +0.3%"
                + " | +7.0% | 55.5% |")
        .contains(
            "| CDC 1 | 1,000 | 9.0 | 32.0 | 50.0 | 0.8x | goal: p99 <= 30 ms | 15,000 |  |  |  |  |")
        .contains(
            "| CDC 10 | 200 | 10.0 | 40.0 | 60.0 | 1 | goal: p99 <= 15 ms | 3,000 | +2.0 | +0.3% |"
                + " +1.0% | 8.0% |")
        .contains(
            "| polling 500 | 200 | 270.0 | 520.0 | 540.0 | 13.0x | goal: >= 10x | 3,000 | +6.0 |"
                + " +0.4% | +0.5% |  |")
        .contains(
            "| polling 50 | 200 | 40.0 | 70.0 | 80.0 | 1.8x | goal: >= 10x | 3,000 (2 missing) |"
                + " +40.0 | n/a | +0.0% |  |")
        .contains(
            "- CDC 10 at 200/s: commit → relay's send p50 7.5 / p99 30.0 ms, relay's send →"
                + " received p50 2.5 / p99 9.0 ms; the slowest 1% (30 events at or above the p99)"
                + " 33.0 ms before the send and 7.5 ms after it on average.")
        .doesNotContain("- CDC 1 at")
        .contains("about 500 ms p99")
        .contains(
            "| shared | 10,000 | 1,990 | 0.20 | >= 0.9 | 2,000 → 1,990, 0 → 150; 4,000 → 3,980, 10"
                + " → 9,000 (growing) |")
        .contains("a note");
  }

  @Test
  void theSlowestOnePercentAreTheEventsAtOrAboveTheP99AndTheirPartsAreTheirMeans() {
    // 98 events of 2 ms (1 before the send, 1 after) and two of 40 ms (36 + 4 and 34 + 6)
    int n = 100;
    long[] totals = new long[n];
    long[] before = new long[n];
    long[] after = new long[n];
    Histogram total = new Histogram(600_000_000L, 3);
    Histogram b = new Histogram(600_000_000L, 3);
    Histogram a = new Histogram(600_000_000L, 3);
    for (int i = 0; i < n; i++) {
      totals[i] = i == 10 || i == 60 ? 40_000 : 2_000;
      before[i] = i == 10 ? 36_000 : i == 60 ? 34_000 : 1_000;
      after[i] = totals[i] - before[i];
      total.recordValue(totals[i]);
      b.recordValue(before[i]);
      a.recordValue(after[i]);
    }
    RelayBench.Split s = RelayLatency.split(total, b, a, totals, before, after, n);
    assertThat(s.slowest()).isEqualTo(2);
    assertThat(s.slowestBeforeMs()).isEqualTo(35.0);
    assertThat(s.slowestAfterMs()).isEqualTo(5.0);
    assertThat(s.beforeP50Ms()).isEqualTo(1.0);
    assertThat(s.afterP50Ms()).isEqualTo(1.0);
  }

  @Test
  void capacityIsTheHighestCommittedRateOfAFlatStepNotTheLastOnes() {
    // run U of 2026-12-03: at 100% the writers committed less than at 80%, both steps flat
    RelayBench.Capacity c =
        new RelayBench.Capacity(
            "split",
            5_331,
            List.of(
                new RelayBench.CapacityStep(3_198, 3_199, 0, 0, true),
                new RelayBench.CapacityStep(4_264, 4_265, 0, 0, true),
                new RelayBench.CapacityStep(5_331, 3_538, 0, 0, true)));
    assertThat(c.highestFlat()).isEqualTo(4_265);

    RelayBench.Capacity growingAtFirst =
        new RelayBench.Capacity(
            "shared", 10_000, List.of(new RelayBench.CapacityStep(2_000, 2_000, 0, 9_000, false)));
    assertThat(growingAtFirst.highestFlat()).isZero();
  }
}
