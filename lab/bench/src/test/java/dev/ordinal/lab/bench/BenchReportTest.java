package dev.ordinal.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class BenchReportTest {
  private static Map<String, String> durable() {
    Map<String, String> pg = new LinkedHashMap<>();
    pg.put("server_version", "17.11");
    pg.put("fsync", "on");
    pg.put("synchronous_commit", "on");
    pg.put("full_page_writes", "on");
    pg.put("wal_writer_delay", "10ms");
    return pg;
  }

  @Test
  void theHeaderStatesMachineDatabaseAndScenarios() {
    List<String> header =
        BenchReport.header(
            "2026-11-29T22:10Z",
            new BenchReport.Machine(2, 24_105, 6_028, "17.0.15"),
            "embedded",
            durable(),
            true,
            List.of("relay", "e2e"));
    assertThat(header)
        .containsExactly(
            "# Benchmarks (2026-11-29T22:10Z)",
            "",
            "Machine: 2 cores, 24,105 MiB RAM, 6,028 MiB max heap; one JVM (17.0.15) runs the load"
                + " generators, the services and the Kafka broker.  ",
            "PostgreSQL 17.11 (embedded): fsync=on, synchronous_commit=on, full_page_writes=on,"
                + " wal_writer_delay=10ms.  ",
            "Scenarios: relay, e2e (--quick: shorter windows, indicative figures only); all on this"
                + " one stack, one after the other.");
  }

  @Test
  void theDocumentIsTheHeaderThenEachSectionAfterABlankLine() {
    String doc =
        BenchReport.document(
            List.of("# Benchmarks (t)"),
            List.of(List.of("## A", "", "| a |"), List.of("## B", "", "| b |")));
    assertThat(doc).isEqualTo("# Benchmarks (t)\n\n## A\n\n| a |\n\n## B\n\n| b |\n");
  }

  @Test
  void latencyIsInMillisecondsFromMicroseconds() {
    Histogram h = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
    for (int i = 1; i <= 100; i++) {
      h.recordValue(i * 20L); // below 2,048 µs: exact at 3 significant digits
    }
    BenchReport.Latency l = BenchReport.Latency.of(h);
    assertThat(l.count()).isEqualTo(100);
    assertThat(l.p50Ms()).isEqualTo(1.0);
    assertThat(l.p99Ms()).isEqualTo(1.98);
    assertThat(l.maxMs()).isEqualTo(2.0);
    assertThat(l.cells()).isEqualTo("1.0 | 2.0 | 2.0");
  }

  @Test
  void anEmptyHistogramReadsNotAvailable() {
    BenchReport.Latency l = BenchReport.Latency.of(new Histogram(3));
    assertThat(l.count()).isZero();
    assertThat(l.cells()).isEqualTo("n/a | n/a | n/a");
  }

  @Test
  void scenarioNamesAreWhatOnlyTakes() {
    assertThat(new Scenario("e2e", (stack, quick, p) -> List.of()).name()).isEqualTo("e2e");
    assertThatThrownBy(() -> new Scenario("E2E!", (stack, quick, p) -> List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("A scenario name is 1 to 32 lower-case letters, digits or dashes, not E2E!");
  }

  @Test
  void lanesAndE2eSettingsRefuseNonsenseInOneSentence() {
    assertThatThrownBy(
            () -> new LanesBench.Settings(0, 5, 10, 1, 4, java.time.Duration.ofSeconds(45)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bulk must be 1 to 1,000,000, not 0");
    assertThatThrownBy(
            () ->
                new E2eBench.Settings(
                    50,
                    java.time.Duration.ofSeconds(1),
                    java.time.Duration.ofSeconds(5),
                    java.time.Duration.ofMillis(20),
                    java.time.Duration.ofMillis(5)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the integrator's latency must be 0 <= min <= max, not PT0.02S to PT0.005S");
  }

  @Test
  void ratiosReadNotAvailableWithoutBothFigures() {
    assertThat(LanesBench.ratio(300, 100, "x")).isEqualTo("3.00x");
    assertThat(LanesBench.ratio(Double.NaN, 100, "x")).isEqualTo("n/a");
  }

  @Test
  void theE2eSectionPutsEachRateBesideTheOfferedOne() {
    E2eBench.Report r =
        new E2eBench.Report(
            E2eBench.Settings.QUICK,
            new BenchReport.Latency(400, 20.0, 60.0, 80.0),
            new BenchReport.Latency(399, 90.0, 210.5, 300.0),
            new BenchReport.Latency(399, 85.0, 200.0, 290.0),
            50.0,
            49.5,
            1);
    List<String> md = E2eBench.markdown(r, "t");
    assertThat(md.get(0)).isEqualTo("## End to end (t)");
    assertThat(md)
        .contains(
            "| placed → consumer applied (draft invoice) | 400 | 20.0 | 60.0 | 80.0 |",
            "| placed → invoice issued | 399 (1 missing) | 90.0 | 210.5 | 300.0 |",
            "| offered (limit) | 50 | 1.00 | |",
            "| invoices issued | 49.5 | 0.99 | >= 1.0 (keeps up) |");
  }

  @Test
  void theLanesSectionComparesPriorityOnWithOff() {
    LanesBench.Report r =
        new LanesBench.Report(
            LanesBench.Settings.QUICK,
            new LanesBench.Mode(
                true,
                new BenchReport.Latency(40, 8.0, 100.0, 120.0),
                List.of(45.0),
                false,
                0,
                List.of(1_500)),
            new LanesBench.Mode(
                false,
                new BenchReport.Latency(45, 4_000.0, 8_000.0, 8_100.0),
                List.of(9.0),
                true,
                0,
                List.of(4_000)));
    List<String> md = LanesBench.markdown(r, "t");
    assertThat(md)
        .contains(
            "| on | 40 | 8.0 | 100.0 | 120.0 | 0.05 | p99 < 2,000 ms | 45.0 (NOT drained: window"
                + " ended) | [45.0] | [1,500] |",
            "| off (limit) | 45 | 4000.0 | 8000.0 | 8100.0 | 4.00 |  | 9.0 | [9.0] | [4,000] |");
    assertThat(md.get(md.size() - 1))
        .startsWith(
            "Priority on vs off: interactive p99 80.00x lower with priority; backlog drain NOT"
                + " drained with priority within 45 s ([1,500] of 4,000 bulk applied), against"
                + " 9.0 s without (the cost of priority).");
  }
}
