package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The cut-over of docs/ADOPTING.md, under traffic, on a team's own outbox table (other column
 * names, a text payload): the polling relay publishes; the CDC relay is started on the same table
 * (its slot first, then the poller's backlog, then the stream); once it streams the poller is
 * stopped; CDC goes on alone. Every row reaches Kafka, each aggregate's events keep their order
 * (first copies), and the copies are at most the poller's backlog when CDC started, plus the rows
 * written while it started (after its slot and undispatched at its first read, a row is both read
 * and streamed), plus what the poller published while both ran.
 */
@ExtendWith(OrdinalStackExtension.class)
class CutOverIT {
  static final int AGGREGATES = 40;

  @Test
  void fromPollingToCdcUnderTrafficNothingIsLostOrderHoldsCopiesStayWithinTheBound(TestNamespace ns)
      throws Exception {
    DatabaseSettings db = RelayFixture.ownerSettings(ns);
    DSLContext sql = DSL.using(ns.dataSource(), SQLDialect.POSTGRES);
    TeamOutbox table = new TeamOutbox(sql, ns.schema());
    String topic = ns.topic("parcel");

    // a steady writer: one event per transaction, at most one every 4 ms, round-robin over the
    // aggregates, each numbered
    TeamTraffic traffic = new TeamTraffic(table, AGGREGATES);

    PollingRelayConfig pollingConfig = TeamOutbox.poller(ns, db);
    RelayConfig cdcConfig = TeamOutbox.cdc(ns, db, "cut", true);
    long backlogAtCdcStart;
    long writtenWhileStarting;
    long pollerPublishedWhileBoth;
    try (PollingRelay poller = new PollingRelay(pollingConfig, new SimpleMeterRegistry()).start()) {
      await().atMost(Duration.ofSeconds(30)).until(() -> poller.published() >= 300);

      // the cut-over: CDC starts on the table while the poller keeps publishing
      // a row the poller published before this count was marked dispatched, or is counted here
      long pollerBefore = poller.published();
      java.time.Instant cdcStarting = java.time.Instant.now();
      backlogAtCdcStart = table.undispatched();
      try (OutboxRelay cdc = new OutboxRelay(cdcConfig, new SimpleMeterRegistry()).start()) {
        cdc.awaitStreaming(Duration.ofSeconds(60));
        // rows written while the CDC relay started: committed after its slot and still
        // undispatched at its first read, a row is both read and streamed
        writtenWhileStarting = table.writtenBetween(cdcStarting, java.time.Instant.now());
        traffic.awaitMore(200);
        poller.close();
        pollerPublishedWhileBoth = poller.published() - pollerBefore;

        // CDC alone
        traffic.awaitMore(300);
        Set<String> ids = traffic.stop();
        List<ConsumerRecord<String, String>> records;
        try (TopicReader reader = new TopicReader(ns.stack().kafkaBootstrap(), topic)) {
          records = reader.readUntilAll(ids, Duration.ofSeconds(60));
        }
        TeamTraffic.Arrivals arrivals = traffic.arrivals(records);
        Set<String> seen = arrivals.seen();
        List<String> outOfOrder = arrivals.outOfOrder();
        long copies = arrivals.copies();
        long bound = backlogAtCdcStart + writtenWhileStarting + pollerPublishedWhileBoth;
        System.out.printf(
            "cut-over: %d written, %d records, %d distinct, %d copies (bound %d: backlog %d +"
                + " written while CDC started %d + published by the poller while both ran %d),"
                + " %d out of order%n",
            ids.size(),
            records.size(),
            seen.size(),
            copies,
            bound,
            backlogAtCdcStart,
            writtenWhileStarting,
            pollerPublishedWhileBoth,
            outOfOrder.size());
        assertThat(seen).as("every row on Kafka").containsExactlyInAnyOrderElementsOf(ids);
        assertThat(outOfOrder).as("each aggregate's events in the order written").isEmpty();
        assertThat(copies).as("copies within the stated bound").isLessThanOrEqualTo(bound);
        assertThat(cdc.relayed()).as("CDC went on alone").isGreaterThan(0);
      }
    } finally {
      traffic.stop();
    }
  }
}
