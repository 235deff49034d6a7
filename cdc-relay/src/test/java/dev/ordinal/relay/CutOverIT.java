package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.HeaderFormat;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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
 * (first copies), and the copies are at most the poller's backlog when CDC started plus what the
 * poller published while both ran.
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

    // a steady writer: one event every 4 ms, round-robin over the aggregates, each numbered
    Map<String, String> aggregateOf = new ConcurrentHashMap<>();
    Map<String, Integer> seqOf = new ConcurrentHashMap<>();
    AtomicInteger written = new AtomicInteger();
    AtomicBoolean writing = new AtomicBoolean(true);
    Thread writer =
        new Thread(
            () -> {
              int[] next = new int[AGGREGATES];
              for (int i = 0; writing.get(); i++) {
                int a = i % AGGREGATES;
                String entity = "parcel-" + a;
                String id = table.insert(entity, "{\"seq\":" + next[a] + "}");
                aggregateOf.put(id, entity);
                seqOf.put(id, next[a]++);
                written.incrementAndGet();
                java.util.concurrent.locks.LockSupport.parkNanos(4_000_000);
              }
            },
            "cut-over-writer");
    writer.start();

    PollingRelayConfig pollingConfig =
        PollingRelayConfig.builder(db, ns.stack().kafkaBootstrap(), ns.topicPrefix())
            .instanceId("poller")
            .pollInterval(Duration.ofMillis(50))
            .outbox(ns.schema(), TeamOutbox.TABLE, HeaderFormat.ORDINAL)
            .build();
    RelayConfig cdcConfig =
        RelayConfig.builder(db, ns.stack().kafkaBootstrap(), ns.schema(), ns.topicPrefix())
            .slot(ns.name() + "_cut", ns.name() + "_cut", true)
            .outbox(TeamOutbox.TABLE, null)
            .instanceId("cdc")
            .build();
    long backlogAtCdcStart;
    long pollerPublishedWhileBoth;
    try (PollingRelay poller = new PollingRelay(pollingConfig, new SimpleMeterRegistry()).start()) {
      await().atMost(Duration.ofSeconds(30)).until(() -> poller.published() >= 300);

      // the cut-over: CDC starts on the table while the poller keeps publishing
      // a row the poller published before this count was marked dispatched, or is counted here
      long pollerBefore = poller.published();
      backlogAtCdcStart = table.undispatched();
      try (OutboxRelay cdc = new OutboxRelay(cdcConfig, new SimpleMeterRegistry()).start()) {
        cdc.awaitStreaming(Duration.ofSeconds(60));
        int atStream = written.get();
        await().atMost(Duration.ofSeconds(30)).until(() -> written.get() >= atStream + 200);
        poller.close();
        pollerPublishedWhileBoth = poller.published() - pollerBefore;

        // CDC alone
        int atStop = written.get();
        await().atMost(Duration.ofSeconds(30)).until(() -> written.get() >= atStop + 300);
        writing.set(false);
        writer.join(10_000);
        Set<String> ids = aggregateOf.keySet();
        List<ConsumerRecord<String, String>> records;
        try (TopicReader reader = new TopicReader(ns.stack().kafkaBootstrap(), topic)) {
          records = reader.readUntilAll(ids, Duration.ofSeconds(60));
        }
        Set<String> seen = new HashSet<>();
        Map<String, Integer> lastSeq = new HashMap<>();
        List<String> outOfOrder = new ArrayList<>();
        for (ConsumerRecord<String, String> r : records) {
          String id = TopicReader.messageId(r);
          if (!seen.add(id)) {
            continue; // a copy: consumers skip it
          }
          int seq = seqOf.get(id);
          Integer last = lastSeq.put(r.key(), seq);
          if (last != null && seq != last + 1) {
            outOfOrder.add(r.key() + ": " + last + " then " + seq);
          }
          if (last == null && seq != 0) {
            outOfOrder.add(r.key() + ": starts at " + seq);
          }
        }
        long copies = records.size() - seen.size();
        long bound = backlogAtCdcStart + pollerPublishedWhileBoth;
        System.out.printf(
            "cut-over: %d written, %d records, %d distinct, %d copies (bound %d: backlog %d +"
                + " published by the poller while both ran %d), %d out of order%n",
            ids.size(),
            records.size(),
            seen.size(),
            copies,
            bound,
            backlogAtCdcStart,
            pollerPublishedWhileBoth,
            outOfOrder.size());
        assertThat(seen).as("every row on Kafka").containsExactlyInAnyOrderElementsOf(ids);
        assertThat(outOfOrder).as("each aggregate's events in the order written").isEmpty();
        assertThat(copies).as("copies within the stated bound").isLessThanOrEqualTo(bound);
        assertThat(cdc.relayed()).as("CDC went on alone").isGreaterThan(0);
      }
    } finally {
      writing.set(false);
      writer.join(10_000);
    }
  }
}
