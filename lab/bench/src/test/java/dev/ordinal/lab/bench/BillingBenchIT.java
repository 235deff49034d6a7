package dev.ordinal.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The numbering and billing benchmarks run end to end on the real stack with tiny settings: every
 * figure is there with its limit and goal. Timings are printed by the benchmarks, never asserted;
 * the exact counts are (the consumer runs fail the bench unless each record made one invoice).
 */
@ExtendWith(OrdinalStackExtension.class)
class BillingBenchIT {

  private static DatabaseSettings db(TestNamespace ns) {
    return BenchRun.database(ns.stack());
  }

  @Test
  void billingReportsTheIssuerPerInFlightLevelAndTheConsumerWithAndWithoutTheInbox(TestNamespace ns)
      throws Exception {
    BillingBench.Settings s =
        new BillingBench.Settings(
            Duration.ofMillis(20),
            List.of(1, 2),
            // the warm-up also covers a cold JVM's first claim, reservation and HTTP call
            Duration.ofSeconds(2),
            Duration.ofSeconds(1),
            300,
            100,
            2,
            1);
    List<String> progress = new ArrayList<>();
    NumberingBench.Report r =
        BillingBench.run(db(ns), ns.stack().kafkaBootstrap(), s, ns.name(), progress::add);

    assertThat(r.database()).containsEntry("fsync", r.database().get("fsync")).hasSize(4);
    assertThat(r.rows()).hasSize(8);
    assertThat(r.rows().subList(0, 2))
        .extracting(NumberingBench.Row::limit)
        .as("in-flight / latency")
        .containsExactly(50.0, 100.0);
    assertThat(r.rows().subList(0, 2)).extracting(NumberingBench.Row::goal).containsOnly(">= 0.9");
    assertThat(r.rows().subList(0, 2)).allSatisfy(row -> assertThat(row.value()).isPositive());
    NumberingBench.Row plain = r.rows().get(4);
    assertThat(plain.what()).contains("without the inbox row");
    assertThat(r.rows().subList(2, 5))
        .extracting(NumberingBench.Row::limit)
        .as("each consumer next to the one without the inbox")
        .containsOnly(plain.value());
    assertThat(r.rows().get(2).what()).startsWith("consumer: real InboxConsumer");
    assertThat(r.rows().get(2).goal()).isEqualTo(">= 0.9");
    // the inbox row's cost with one client: time, client CPU and WAL per record, with it against
    // without it; the inbox row is written, so the WAL per record is more with it than without
    assertThat(r.rows().subList(5, 8))
        .extracting(NumberingBench.Row::unit)
        .containsExactly("us", "us", "bytes");
    assertThat(r.rows().get(5).what()).contains("1,000 records one after the other");
    NumberingBench.Row wal = r.rows().get(7);
    assertThat(wal.value()).as("WAL per record with the inbox row").isGreaterThan(wal.limit());
    assertThat(wal.limit()).as("WAL per record without it").isPositive();
    // where it went, from pg_walinspect on the test server: the inbox table and its key among it
    assertThat(wal.what()).contains("by relation: ").contains("inbox ").contains("inbox_pkey ");
    assertThat(progress).anyMatch(l -> l.startsWith("one client, 1,000 records each"));
    assertThat(progress).anyMatch(l -> l.startsWith("produced 400 OrderPlaced records"));
    assertThat(progress).filteredOn(l -> l.endsWith("records/s")).hasSize(3);
    assertThat(BillingBench.markdown(r, s, "embedded", "now"))
        .contains("## Billing (now)")
        .anyMatch(l -> l.startsWith("Machine: "))
        .anyMatch(l -> l.startsWith("PostgreSQL: ") && l.contains("fsync="))
        .filteredOn(l -> l.startsWith("| "))
        .hasSize(9);
  }

  @Test
  void numberingReportsReservationsAgainstTheCounter(TestNamespace ns) throws Exception {
    NumberingBench.Settings s =
        new NumberingBench.Settings(4, Duration.ofMillis(100), Duration.ofMillis(300), 1);
    NumberingBench.Report r = NumberingBench.run(db(ns), s, line -> {});
    // counter (limit), reservation, three one-client profile rows
    assertThat(r.rows()).hasSize(5);
    double counter = r.rows().get(0).value();
    assertThat(r.rows().get(0).limit()).isEqualTo(counter);
    assertThat(r.rows().get(1).limit()).as("reservations against the counter").isEqualTo(counter);
    assertThat(r.rows().subList(2, 5))
        .extracting(NumberingBench.Row::unit)
        .containsExactly("us", "us", "bytes");
    // the WAL's relations: a reservation writes the invoice row, the counter update its table
    assertThat(r.rows().get(4).what())
        .contains("bytes per reservation: ")
        .contains("invoice ")
        .contains("per counter update: bench_counter ");
    assertThat(r.rows())
        .extracting(NumberingBench.Row::goal)
        .containsExactly("-", ">= 0.8", "-", "-", "-");
    assertThat(r.rows()).allSatisfy(row -> assertThat(row.value()).isPositive());
    assertThat(r.rows()).allSatisfy(row -> assertThat(row.limit()).isPositive());
  }
}
