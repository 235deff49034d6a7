package dev.ordinal.billing;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.PAYMENT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.ordinal.billing.db.tables.records.InvoiceRecord;
import dev.ordinal.lab.sim.Charge;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.PaymentGatewaySimulator;
import dev.ordinal.messaging.inbox.InboxConsumer;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestKafka;
import dev.ordinal.testkit.TestNamespace;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Billing's database restored to an earlier point while Kafka's committed offsets stay where they
 * were (a point-in-time restore, an asynchronous replica promoted), and the outside world does not
 * forget: the integrator keeps the numbers and the gateway the charges made for what the restore
 * lost. Billing started again reads the lost orders again from the position its database holds.
 */
@ExtendWith(OrdinalStackExtension.class)
class RestoredDatabaseIT {
  private static final List<String> RESTORED = List.of("inbox", "inbox_position", "payment");
  // every table of billing's schema, in an order that deletes before what they reference
  private static final List<String> ALL_TABLES =
      List.of(
          "invoice_discrepancy",
          "payment_discrepancy",
          "inbox",
          "inbox_position",
          "outbox",
          "payment",
          "order_cancellation",
          "invoice",
          "invoice_series");

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
      produce(bootstrap, topic, 0, 500, "R1");
      try (InboxConsumer first = fx.consumer(ns, group, topic)) {
        awaitCaughtUp(first, admin, group, topic, 500, 500);
      }
      for (String table : RESTORED) {
        fx.dsl.execute("create table backup_" + table + " as select * from " + table);
      }
      fx.dsl.execute("create table backup_invoice as select * from invoice");

      // 500 more applied; then the database is restored from the backup, Kafka is not
      produce(bootstrap, topic, 500, 1_000, "R1");
      try (InboxConsumer second = fx.consumer(ns, group, topic)) {
        awaitCaughtUp(second, admin, group, topic, 500, 1_000);
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
        awaitCaughtUp(third, admin, group, topic, 500, 1_000);
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
   * The issuer and the collector ran before the restore: the integrator holds numbers 1..1000 and
   * the gateway 1,000 charges, while the restored database knows only the first 500 of each. 10 %
   * of the lost orders are cancelled after the restore point. Billing, started again, asks before
   * it decides: no charge of a cancelled order stays captured, no order is charged twice, and
   * {@code invoices reconcile} reports every number the integrator holds outside the local ISSUED
   * set (the simulators' own records are the oracle).
   */
  @Test
  void whatTheIssuerAndCollectorDidBeforeTheRestoreIsRefundedOrReported(TestNamespace ns)
      throws Exception {
    String series = "R2";
    String bootstrap = ns.stack().kafkaBootstrap();
    String topic = BillingFixture.topic(ns, "order-run", 3);
    String group = ns.group("billing-run");
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
        BillingFixture fx = new BillingFixture(ns, "restored-run");
        IntegratorSimulator integrator =
            BillingFixture.integrator(Duration.ZERO, Duration.ofMillis(2));
        PaymentGatewaySimulator gateway =
            BillingFixture.gateway(Duration.ZERO, Duration.ofMillis(2))) {
      InvoiceIssuerConfig config = InvoiceIssuerConfig.defaults().withWorkers(4);
      // 500 orders applied, issued and charged; then a backup taken (billing stopped)
      List<UUID> kept = produce(bootstrap, topic, 0, 500, series);
      try (InboxConsumer first = fx.consumer(ns, group, topic)) {
        awaitCaughtUp(first, admin, group, topic, 500, 500);
      }
      fx.issuer(config, integrator.baseUri()).drain();
      fx.payments(gateway.baseUri(), 4).drain();
      for (String table : ALL_TABLES) {
        fx.dsl.execute("create table backup_" + table + " as select * from " + table);
      }

      // 500 more applied, issued and charged: the outside world now holds 1,000 of each
      List<UUID> lost = produce(bootstrap, topic, 500, 1_000, series);
      try (InboxConsumer second = fx.consumer(ns, group, topic)) {
        awaitCaughtUp(second, admin, group, topic, 500, 1_000);
      }
      fx.issuer(config, integrator.baseUri()).drain();
      fx.payments(gateway.baseUri(), 4).drain();
      assertThat(integrator.acceptedCount()).isEqualTo(1_000);
      assertThat(gateway.charges()).isEqualTo(1_000);

      // the database is restored from the backup; Kafka, the integrator and the gateway are not
      for (String table : ALL_TABLES) {
        fx.dsl.execute("delete from " + table);
      }
      for (int i = ALL_TABLES.size() - 1; i >= 0; i--) {
        String table = ALL_TABLES.get(i);
        fx.dsl.execute(
            "insert into " + table + " overriding system value select * from backup_" + table);
      }
      assertThat(fx.dsl.fetchCount(INVOICE)).as("after the restore").isEqualTo(500);
      // after the restore point, 10 % of the lost orders are cancelled
      List<UUID> cancelled = new ArrayList<>();
      for (int i = 0; i < lost.size(); i += 10) {
        cancelled.add(lost.get(i));
      }
      cancel(bootstrap, topic, cancelled);

      // billing again: it applies the lost 500 and the 50 cancellations, then issues and collects
      try (InboxConsumer third = fx.consumer(ns, group, topic)) {
        awaitCaughtUp(third, admin, group, topic, 550, 1_050);
        assertThat(third.rewound()).isEqualTo(500);
      }
      InvoiceIssuer issuer = fx.issuer(config, integrator.baseUri());
      issuer.drain();
      fx.payments(gateway.baseUri(), 4).drain();

      // the gateway: every charge of a cancelled order refunded, no order charged twice
      List<Charge> capturedForCancelled =
          cancelled.stream()
              .flatMap(o -> gateway.chargesFor(o.toString()).stream())
              .filter(c -> c.status() == Charge.Status.CAPTURED)
              .toList();
      long refunded =
          cancelled.stream()
              .flatMap(o -> gateway.chargesFor(o.toString()).stream())
              .filter(c -> c.status() == Charge.Status.REFUNDED)
              .count();
      List<UUID> chargedTwice =
          concat(kept, lost).stream()
              .filter(o -> gateway.chargesFor(o.toString()).size() > 1)
              .toList();

      // the integrator: every number it holds that is not ISSUED here for the same invoice
      Set<String> issuedHere =
          fx.dsl.selectFrom(INVOICE).where(INVOICE.STATUS.eq("ISSUED")).fetch().stream()
              .map(inv -> key(inv.getSeries(), inv.getNumber(), InvoiceNumbering.uuid(inv)))
              .collect(Collectors.toSet());
      Set<String> heldOutsideIssued =
          integrator.accepted().entrySet().stream()
              .filter(
                  e ->
                      !issuedHere.contains(
                          key(
                              e.getKey().series(),
                              e.getKey().number(),
                              UUID.fromString(e.getValue()))))
              .map(e -> e.getKey().series() + "/" + e.getKey().number())
              .collect(Collectors.toCollection(TreeSet::new));
      long pastCounter =
          integrator.accepted().keySet().stream()
              .filter(n -> n.series().equals(series))
              .filter(n -> n.number() > new GapAudit(fx.dsl).run(series).get(0).highest())
              .count();
      InvoiceReconciliation.Report invoices =
          new InvoiceReconciliation(
                  fx.dsl,
                  new HttpEInvoiceIntegrator(integrator.baseUri(), Duration.ofSeconds(5)),
                  config.inFlightWindow(),
                  new SimpleMeterRegistry())
              .run(true);
      Set<String> reported =
          invoices.discrepancies().stream()
              .map(d -> d.series() + "/" + d.number())
              .collect(Collectors.toCollection(TreeSet::new));
      PaymentReconciliation.Report payments =
          new PaymentReconciliation(
                  fx.dsl,
                  new HttpPaymentGateway(gateway.baseUri(), Duration.ofSeconds(5)),
                  PaymentCollector.LEASE.plus(Duration.ofSeconds(5)),
                  new SimpleMeterRegistry())
              .run(true);
      Map<String, Long> localStatus =
          fx.dsl.selectFrom(INVOICE).fetch().stream()
              .collect(Collectors.groupingBy(InvoiceRecord::getStatus, Collectors.counting()));
      System.out.printf(
          "after the restore: invoices %s; integrator holds %d, %d of them outside the ISSUED"
              + " set (%d past the local counter), reported %d (%d asked past the counter, %d by"
              + " id); cancelled %d, their charges refunded %d, still captured %d; charges %d,"
              + " orders charged twice %d; payment discrepancies %d%n",
          localStatus,
          integrator.acceptedCount(),
          heldOutsideIssued.size(),
          pastCounter,
          reported.size(),
          invoices.scanned(),
          invoices.askedById(),
          cancelled.size(),
          refunded,
          capturedForCancelled.size(),
          gateway.charges(),
          chargedTwice.size(),
          payments.discrepancies().size());

      assertThat(capturedForCancelled).as("captured, unrefunded, for a cancelled order").isEmpty();
      assertThat(refunded).as("every cancelled order's charge refunded").isEqualTo(50);
      assertThat(chargedTwice).as("orders charged twice").isEmpty();
      assertThat(gateway.charges()).as("one charge per order").isEqualTo(1_000);
      assertThat(payments.discrepancies()).as("the collector asked before it decided").isEmpty();

      assertThat(heldOutsideIssued).as("the restore left numbers outside ISSUED").isNotEmpty();
      assertThat(pastCounter).as("numbers past the local counter").isPositive();
      assertThat(reported).as("reported by invoices reconcile").isEqualTo(heldOutsideIssued);
      assertThat(invoices.unanswered()).isZero();
    }
  }

  private static String key(String series, long number, UUID invoiceId) {
    return series + "/" + number + "=" + invoiceId;
  }

  private static List<UUID> concat(List<UUID> a, List<UUID> b) {
    List<UUID> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  /**
   * Waits until {@code consumer} applied {@code applied} and the group's offsets on topic sum to
   * {@code committed}.
   */
  private static void awaitCaughtUp(
      InboxConsumer consumer,
      Admin admin,
      String group,
      String topic,
      long applied,
      long committed) {
    await()
        .atMost(Duration.ofSeconds(120))
        .until(
            () ->
                consumer.applied() == applied
                    && BillingFixture.committed(admin, group, topic) == committed);
  }

  /** Places orders {@code from} to {@code to} in {@code series}; returns their ids in order. */
  private static List<UUID> produce(String bootstrap, String topic, int from, int to, String series)
      throws Exception {
    List<UUID> orders = new ArrayList<>();
    try (KafkaProducer<String, String> producer = TestKafka.producer(bootstrap)) {
      for (int i = from; i < to; i++) {
        UUID order = UUID.randomUUID();
        orders.add(order);
        producer.send(OrderMessages.placedRecord(topic, order, series, "placed-" + i));
      }
      producer.flush();
    }
    return orders;
  }

  /** Cancels {@code orders} on {@code topic}, each under a message id of its own. */
  private static void cancel(String bootstrap, String topic, List<UUID> orders) throws Exception {
    try (KafkaProducer<String, String> producer = TestKafka.producer(bootstrap)) {
      for (UUID order : orders) {
        producer.send(
            OrderMessages.record(
                topic,
                new dev.ordinal.contracts.OrderCancelledV1(order, "changed mind", OrderMessages.AT),
                "cancelled-" + order));
      }
      producer.flush();
    }
  }
}
