package dev.ordinal.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
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
 * The way back of docs/ADOPTING.md, under traffic, on a team's own outbox table: the CDC relay
 * streams; it is stopped; {@code relay mark-dispatched --execute} ({@link
 * RelayRecovery#markDispatched}) marks what it published; the polling relay takes over. Every row
 * reaches Kafka, each aggregate's events keep their order (first copies), and the copies are at
 * most the rows the marking left in its margin plus those written between the stored position's
 * last commit and the CDC relay's stop (it may have published them after its last stored position).
 */
@ExtendWith(OrdinalStackExtension.class)
class CutBackIT {
  static final int AGGREGATES = 40;
  // the writer's clock is PostgreSQL's and each transaction one insert: a second is ample
  static final Duration MARGIN = Duration.ofSeconds(1);

  @Test
  void fromCdcToPollingUnderTrafficNothingIsLostOrderHoldsCopiesStayWithinTheMargin(
      TestNamespace ns) throws Exception {
    DatabaseSettings db = RelayFixture.ownerSettings(ns);
    DSLContext sql = DSL.using(ns.dataSource(), SQLDialect.POSTGRES);
    TeamOutbox table = new TeamOutbox(sql, ns.schema());
    RelayConfig cdcConfig = TeamOutbox.cdc(ns, db, "back", false);
    RelayRecovery recovery = new RelayRecovery(cdcConfig);

    TeamTraffic traffic;
    long cdcRelayed;
    try (OutboxRelay cdc = new OutboxRelay(cdcConfig, new SimpleMeterRegistry()).start()) {
      cdc.awaitStreaming(Duration.ofSeconds(60));
      traffic = new TeamTraffic(table, AGGREGATES);
      traffic.awaitMore(600);
      assertThatThrownBy(() -> recovery.markDispatched(MARGIN, true))
          .as("refused while the CDC relay streams")
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("stop it first");
      cdcRelayed = cdc.relayed();
    }
    java.time.Instant cdcStopped = sql.fetchValue(DSL.currentOffsetDateTime()).toInstant();
    Set<String> ids;
    RelayRecovery.Marking done;
    long pollerPublished;
    try {
      // the way back, the writer going on throughout
      RelayRecovery.Marking dry = recovery.markDispatched(MARGIN, false);
      assertThat(table.dispatched()).as("a dry run marks nothing").isZero();
      done = recovery.markDispatched(MARGIN, true);
      assertThat(done.rows()).as("marked as the dry run said").isEqualTo(dry.rows());
      assertThat(table.dispatched()).isEqualTo((int) done.rows());
      PollingRelayConfig pollingConfig = TeamOutbox.poller(ns, db);
      try (PollingRelay poller =
          new PollingRelay(pollingConfig, new SimpleMeterRegistry()).start()) {
        traffic.awaitMore(300);
        ids = traffic.stop();
        await().atMost(Duration.ofSeconds(60)).until(() -> table.undispatched() == 0);
        pollerPublished = poller.published();
      }
    } finally {
      traffic.stop();
    }
    // the slot nobody reads any more, dropped as docs/ADOPTING.md says
    sql.select(DSL.field("pg_drop_replication_slot({0})", DSL.val(cdcConfig.slotName()))).fetch();
    assertThat(dev.ordinal.relay.internal.SlotPosition.slot(sql, cdcConfig.slotName())).isEmpty();

    List<ConsumerRecord<String, String>> records;
    try (TopicReader reader = new TopicReader(ns.stack().kafkaBootstrap(), ns.topic("parcel"))) {
      records = reader.readUntilAll(ids, Duration.ofSeconds(60));
    }
    TeamTraffic.Arrivals arrivals = traffic.arrivals(records);
    long afterPosition = table.writtenBetween(done.lastCommit(), cdcStopped);
    System.out.printf(
        "cut-back: %d written, %d records, %d distinct, %d copies (bound %d: %d rows in the %s"
            + " margin + %d written after the position's last commit while CDC ran); CDC relayed"
            + " at least %d, %d marked dispatched (occurred_at up to %s, last commit"
            + " %s), the poller published %d, %d out of order%n",
        ids.size(),
        arrivals.records(),
        arrivals.seen().size(),
        arrivals.copies(),
        done.inMargin() + afterPosition,
        done.inMargin(),
        MARGIN,
        afterPosition,
        cdcRelayed,
        done.rows(),
        done.cutOff(),
        done.lastCommit(),
        pollerPublished,
        arrivals.outOfOrder().size());
    assertThat(arrivals.seen()).as("every row on Kafka").containsExactlyInAnyOrderElementsOf(ids);
    assertThat(arrivals.outOfOrder()).as("each aggregate's events in the order written").isEmpty();
    assertThat(arrivals.copies())
        .as("copies within the stated bound")
        .isLessThanOrEqualTo(done.inMargin() + afterPosition);
    assertThat(pollerPublished)
        .as("the poller published only what was not marked")
        .isEqualTo(ids.size() - done.rows());
  }
}
