package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.PAYMENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.messaging.inbox.InboxConsumer;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestKafka;
import dev.ordinal.testkit.TestNamespace;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Billing's database restored to an earlier point while Kafka's committed offsets stay where they
 * were (a point-in-time restore, an asynchronous replica promoted): the last 500 of 1,000 applied
 * orders lose their inbox rows, invoices and payments. Billing started again reads them again from
 * the position its database holds, so 1,000 invoices come out numbered 1..1000.
 */
@ExtendWith(OrdinalStackExtension.class)
class RestoredDatabaseIT {
  private static final List<String> RESTORED = List.of("inbox", "inbox_position", "payment");

  @Test
  void aDatabaseRestoredToAnEarlierPointAppliesWhatItLostAgain(TestNamespace ns) throws Exception {
    String topic = BillingFixture.topic(ns, "order", 3);
    String group = ns.group("billing");
    String bootstrap = ns.stack().kafkaBootstrap();
    try (BillingFixture fx = new BillingFixture(ns, "restored");
        IntegratorSimulator integrator =
            BillingFixture.integrator(Duration.ZERO, Duration.ofMillis(2));
        Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      // 500 orders applied, then a backup taken (billing stopped: a consistent point)
      produce(bootstrap, topic, 0, 500);
      try (InboxConsumer first = fx.consumer(ns, group, topic)) {
        awaitCaughtUp(first, admin, group, topic, 500);
      }
      for (String table : RESTORED) {
        fx.dsl.execute("create table backup_" + table + " as select * from " + table);
      }
      fx.dsl.execute("create table backup_invoice as select * from invoice");

      // 500 more applied; then the database is restored from the backup, Kafka is not
      produce(bootstrap, topic, 500, 1_000);
      try (InboxConsumer second = fx.consumer(ns, group, topic)) {
        awaitCaughtUp(second, admin, group, topic, 1_000);
        assertThat(second.rewound()).isZero();
      }
      assertThat(fx.dsl.fetchCount(INVOICE)).isEqualTo(1_000);
      for (String table : RESTORED) {
        fx.dsl.execute("delete from " + table);
        fx.dsl.execute("insert into " + table + " select * from backup_" + table);
      }
      fx.dsl.execute("delete from invoice");
      fx.dsl.execute("insert into invoice overriding system value select * from backup_invoice");
      assertThat(fx.dsl.fetchCount(INVOICE)).as("after the restore").isEqualTo(500);
      assertThat(BillingFixture.committed(admin, group, topic))
          .as("Kafka kept its offsets")
          .isEqualTo(1_000);

      // billing again: it starts where its database stands and applies the lost 500 again
      try (InboxConsumer third = fx.consumer(ns, group, topic)) {
        awaitCaughtUp(third, admin, group, topic, 1_000);
        assertThat(third.rewound()).isEqualTo(500);
        assertThat(third.duplicates()).isZero();
      }
      assertThat(fx.dsl.fetchCount(INVOICE)).isEqualTo(1_000);
      assertThat(fx.dsl.fetchCount(PAYMENT)).isEqualTo(1_000);

      fx.issuer(InvoiceIssuerConfig.defaults().withWorkers(4), integrator.baseUri()).drain();
      GapAudit.SeriesReport audit = new GapAudit(fx.dsl).run("R1").get(0);
      assertThat(audit.highest()).isEqualTo(1_000);
      assertThat(audit.clean()).as("numbers exactly 1..1000").isTrue();
      assertThat(audit.byStatus()).isEqualTo(Map.of(InvoiceStatus.ISSUED, 1_000));
      assertThat(integrator.acceptedCount()).isEqualTo(1_000);
    }
  }

  /**
   * Waits until {@code consumer} applied 500 and the group's offsets on topic sum to {@code
   * committed}.
   */
  private static void awaitCaughtUp(
      InboxConsumer consumer, Admin admin, String group, String topic, long committed) {
    await()
        .atMost(Duration.ofSeconds(120))
        .until(
            () ->
                consumer.applied() == 500
                    && BillingFixture.committed(admin, group, topic) == committed);
  }

  private static void produce(String bootstrap, String topic, int from, int to) throws Exception {
    try (KafkaProducer<String, String> producer = TestKafka.producer(bootstrap)) {
      for (int i = from; i < to; i++) {
        producer.send(OrderMessages.placedRecord(topic, UUID.randomUUID(), "R1", "placed-" + i));
      }
      producer.flush();
    }
  }
}
