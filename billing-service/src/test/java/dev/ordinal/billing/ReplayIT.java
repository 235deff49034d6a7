package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.PAYMENT;
import static dev.ordinal.messaging.db.Tables.INBOX;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.PaymentGatewaySimulator;
import dev.ordinal.messaging.RefusedException;
import dev.ordinal.messaging.inbox.InboxConsumer;
import dev.ordinal.ops.replay.ExecutedReplay;
import dev.ordinal.ops.replay.PartitionPlan;
import dev.ordinal.ops.replay.ReplayExecutor;
import dev.ordinal.ops.replay.ReplayLog;
import dev.ordinal.ops.replay.ReplayPlan;
import dev.ordinal.ops.replay.ReplayPlanner;
import dev.ordinal.ops.replay.ReplayReport;
import dev.ordinal.ops.replay.ReplayRequest;
import dev.ordinal.ops.replay.ReplayTarget;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A replay that provably does no harm: 1,000 orders consumed, invoiced, numbered and charged; the
 * billing group replayed to the start of the topic; billing started again until it caught up. It
 * counts 1,000 duplicates and changes nothing — no invoice, charge, number or inbox row — and the
 * replay's report says so: 1,000 redelivered, 1,000 duplicates, 0 new effects.
 */
@ExtendWith(OrdinalStackExtension.class)
class ReplayIT {
  static final int ORDERS = 1_000;
  static final Duration TIMEOUT = Duration.ofSeconds(10);

  @Test
  void replayingThousandInvoicedOrdersCountsThousandDuplicatesAndChangesNothing(TestNamespace ns)
      throws Exception {
    String topic = BillingFixture.topic(ns, "order", 3);
    String group = ns.group("billing");
    String bootstrap = ns.stack().kafkaBootstrap();
    try (KafkaProducer<String, String> producer = BillingFixture.batchingProducer(bootstrap)) {
      publish(producer, topic, "order-placed-", ORDERS);
    }

    try (BillingFixture fx = new BillingFixture(ns, "replay");
        IntegratorSimulator integrator =
            BillingFixture.integrator(Duration.ZERO, Duration.ofMillis(2));
        PaymentGatewaySimulator gateway =
            BillingFixture.gateway(Duration.ZERO, Duration.ofMillis(2));
        Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      ReplayLog.migrate(fx.pool, ns.schema("replay"));
      ReplayPlanner planner = new ReplayPlanner(admin, Clock.systemUTC(), TIMEOUT);
      InvoiceIssuer issuer =
          fx.issuer(InvoiceIssuerConfig.defaults().withWorkers(4), integrator.baseUri());
      PaymentCollector payments = fx.payments(gateway.baseUri(), 4);

      // 1. billing reads every order once, until its committed offsets reach the end
      try (InboxConsumer first = fx.consumer(ns, group, topic)) {
        await()
            .atMost(Duration.ofSeconds(120))
            .until(() -> first.applied() == ORDERS && committed(planner, group, topic) == ORDERS);
        assertThat(first.duplicates()).isZero();
      }
      issuer.drain();
      payments.drain();
      assertThat(fx.dsl.fetchCount(INVOICE)).isEqualTo(ORDERS);
      assertThat(fx.dsl.fetchCount(PAYMENT, PAYMENT.STATUS.eq("CAPTURED"))).isEqualTo(ORDERS);
      assertThat(fx.dsl.fetchCount(INBOX)).isEqualTo(ORDERS);
      assertNumbered(fx);
      assertThat(integrator.acceptedCount()).isEqualTo(ORDERS);
      assertThat(gateway.charges()).isEqualTo(ORDERS);

      // 2. the group is empty now: replay it to the start of the topic
      ReplayPlan plan =
          planner.plan(ReplayRequest.allPartitions(group, topic, new ReplayTarget.ToEarliest()));
      assertThat(plan.redeliver()).isEqualTo(ORDERS);
      assertThat(plan.partitions())
          .hasSize(3)
          .allMatch(p -> p.current() == p.latest() && p.target() == 0 && p.earliest() == 0);
      ExecutedReplay replay =
          new ReplayExecutor(admin, new ReplayLog(fx.dsl), Clock.systemUTC(), TIMEOUT)
              .execute(plan, "ops", BillingService.CONSUMER_NAME);
      assertThat(committed(planner, group, topic)).isZero();

      // 3. billing again, until it has caught up: every record is a duplicate
      try (InboxConsumer second = fx.consumer(ns, group, topic)) {
        await()
            .atMost(Duration.ofSeconds(120))
            .until(
                () -> second.duplicates() == ORDERS && committed(planner, group, topic) == ORDERS);
        assertThat(second.applied()).as("applied again").isZero();
        assertThat(second.deadLettered()).isZero();
      }
      assertThat(fx.dsl.fetchCount(INVOICE)).as("invoices").isEqualTo(ORDERS);
      assertThat(fx.dsl.fetchCount(PAYMENT)).as("payments").isEqualTo(ORDERS);
      assertThat(fx.dsl.fetchCount(INBOX)).as("inbox rows").isEqualTo(ORDERS);
      assertThat(issuer.drain()).as("invoices left to number").isZero();
      assertThat(payments.drain()).as("charges left to collect").isZero();
      assertNumbered(fx);
      assertThat(integrator.acceptedCount()).as("numbers at the integrator").isEqualTo(ORDERS);
      assertThat(integrator.duplicateAttempts()).isZero();
      assertThat(gateway.charges()).as("charges at the gateway").isEqualTo(ORDERS);

      // 4. the report says the same
      ExecutedReplay recorded = new ReplayLog(fx.dsl).find(replay.id()).orElseThrow();
      assertThat(recorded.moves()).extracting(ExecutedReplay.Move::to).containsExactly(0L, 0L, 0L);
      ReplayReport report =
          ReplayReport.of(
              recorded,
              BillingService.CONSUMER_NAME,
              fx.dsl,
              planner.committedOffsets(group, topic));
      assertThat(report.caughtUp()).isTrue();
      assertThat(report.redelivered()).isEqualTo(ORDERS);
      assertThat(report.read()).isEqualTo(ORDERS);
      assertThat(report.duplicates()).isEqualTo(ORDERS);
      assertThat(report.newEffects()).isZero();
      assertThat(plan.partitions()).extracting(PartitionPlan::redeliver).doesNotContain(0L);
    }
  }

  /**
   * An operator's skip is honoured: 10 orders applied, 10 more published while billing is stopped,
   * the group replayed to the latest offset (the plan skips those 10), and one more order published
   * after the replay. Started again, billing applies that one only: its stored position moved with
   * the skip. (When it did not, billing started from its stored position and applied all 11.)
   */
  @Test
  void aReplayToTheLatestOffsetSkipsTheUnreadOrdersAndBillingNeverAppliesThem(TestNamespace ns)
      throws Exception {
    String topic = BillingFixture.topic(ns, "skip", 1);
    String group = ns.group("billing-skip");
    try (BillingFixture fx = new BillingFixture(ns, "skip");
        KafkaProducer<String, String> producer =
            BillingFixture.batchingProducer(ns.stack().kafkaBootstrap());
        Admin admin =
            Admin.create(
                Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ns.stack().kafkaBootstrap()))) {
      ReplayLog.migrate(fx.pool, ns.schema("skip"));
      ReplayPlanner planner = new ReplayPlanner(admin, Clock.systemUTC(), TIMEOUT);
      publish(producer, topic, "applied-", 10);
      try (InboxConsumer first = fx.consumer(ns, group, topic)) {
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> first.applied() == 10 && committed(planner, group, topic) == 10);
      }
      publish(producer, topic, "skipped-", 10);

      ReplayPlan plan =
          planner.plan(ReplayRequest.allPartitions(group, topic, new ReplayTarget.ToLatest()));
      assertThat(plan.skip()).isEqualTo(10);
      ReplayExecutor executor =
          new ReplayExecutor(admin, new ReplayLog(fx.dsl), Clock.systemUTC(), TIMEOUT);
      // a misnamed inbox consumer would leave billing's position behind: refused, nothing moved
      assertThatThrownBy(() -> executor.execute(plan, "ops", "billing-typo"))
          .isInstanceOf(RefusedException.class)
          .hasMessage(
              "Inbox consumer billing stores positions on "
                  + topic
                  + " in this schema, and billing-typo none: name the one the group serves with"
                  + " --consumer, or it would apply what the skip leaves out.");
      assertThat(committed(planner, group, topic)).isEqualTo(10);
      executor.execute(plan, "ops", BillingService.CONSUMER_NAME);
      assertThat(committed(planner, group, topic)).isEqualTo(20);
      publish(producer, topic, "after-", 1);

      try (InboxConsumer second = fx.consumer(ns, group, topic)) {
        await().atMost(Duration.ofSeconds(60)).until(() -> committed(planner, group, topic) == 21);
        assertThat(second.applied()).as("applied after the skip").isEqualTo(1);
        assertThat(second.duplicates()).isZero();
      }
      assertThat(fx.dsl.fetchCount(INBOX, INBOX.MESSAGE_ID.like("skipped-%")))
          .as("skipped orders applied")
          .isZero();
      assertThat(fx.dsl.fetchCount(INBOX)).isEqualTo(11);
      assertThat(fx.dsl.fetchCount(INVOICE)).isEqualTo(11);
    }
  }

  private static void publish(
      KafkaProducer<String, String> producer, String topic, String prefix, int orders) {
    for (int i = 0; i < orders; i++) {
      producer.send(placed(topic, UUID.randomUUID(), prefix + i));
    }
    producer.flush();
  }

  private static void assertNumbered(BillingFixture fx) {
    GapAudit.SeriesReport audit = new GapAudit(fx.dsl).run("F1").get(0);
    assertThat(audit.highest()).isEqualTo(ORDERS);
    assertThat(audit.clean()).as("numbers exactly 1..1000").isTrue();
    assertThat(audit.byStatus()).isEqualTo(Map.of(InvoiceStatus.ISSUED, ORDERS));
  }

  private static long committed(ReplayPlanner planner, String group, String topic) {
    return planner.committedOffsets(group, topic).values().stream()
        .mapToLong(Long::longValue)
        .sum();
  }

  private static ProducerRecord<String, String> placed(String topic, UUID order, String messageId) {
    return OrderMessages.placedRecord(topic, order, "F1", messageId);
  }
}
