package dev.ordinal.lab.numbering;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.billing.BillingService;
import dev.ordinal.billing.InvoiceStatus;
import dev.ordinal.lab.sim.IntegratorFault;
import dev.ordinal.lab.sim.IntegratorFaults;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.InvoiceNumber;
import dev.ordinal.lab.sim.PaymentGatewayFaults;
import dev.ordinal.lab.sim.PaymentGatewaySimulator;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.testkit.OrdinalStackExtension;
import dev.ordinal.testkit.TestNamespace;
import java.time.Clock;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The failure table, reproduced once on the real PostgreSQL and the HTTP simulators: 200 invoices
 * per strategy, 4 workers, 10-30 ms integrator latency, 10 % transient failures, 5 % rejections,
 * every 10th order cancelled before sending; then 20 orders, each applied by 4 threads at once.
 * Each test asserts one row of the table. No assertion on a time: serialisation is asserted as the
 * number of integrator calls in flight at once.
 */
@ExtendWith(OrdinalStackExtension.class)
class NumberingStrategiesIT {
  static final LabConfig CONFIG = LabConfig.defaults();

  @AutoClose static HikariDataSource pool;
  static DSLContext dsl;
  @AutoClose static IntegratorSimulator integrator;
  @AutoClose static PaymentGatewaySimulator gateway;
  static LabResult result;

  @BeforeAll
  static void runTheLab(TestNamespace ns) {
    String schema = ns.schema("lab");
    pool =
        new DatabaseSettings(ns.stack().jdbcUrl(), ns.stack().dbUser(), ns.stack().dbPassword())
            .withSchema(schema)
            .pool("numbering-lab", 16);
    BillingService.migrate(pool, schema);
    dsl = DSL.using(pool, SQLDialect.POSTGRES);
    // the lab sets the faults itself (PUT /admin/faults); these are only the starting values
    integrator =
        new IntegratorSimulator(
                0, IntegratorFaults.defaults(), new SplittableRandom(42), Clock.systemUTC())
            .start();
    gateway =
        new PaymentGatewaySimulator(
                0, PaymentGatewayFaults.defaults(), new SplittableRandom(43), Clock.systemUTC())
            .start();
    result =
        new NumberingLab(dsl, integrator.baseUri(), gateway.baseUri(), Clock.systemUTC())
            .run(CONFIG);
    System.out.println(result.table());
  }

  @Test
  void everyStrategyGotTheSameWorkloadAndFinishedIt() {
    assertThat(result.strategies()).hasSize(4);
    for (LabResult.StrategyRow r : result.strategies()) {
      assertThat(r.invoices()).as(r.strategy().label()).isEqualTo(200);
      assertThat(r.cancelled()).as(r.strategy().label()).isEqualTo(20);
      assertThat(r.unfinished()).as(r.strategy().label()).isZero();
      assertThat(r.issued() + r.rejected() + r.cancelled())
          .as(r.strategy().label() + ": every invoice issued, rejected or cancelled")
          .isEqualTo(200);
    }
    // the integrator's own counters agree with the lab's per-strategy figures
    assertThat(result.strategies().stream().mapToLong(LabResult.StrategyRow::calls).sum())
        .isEqualTo(integrator.calls());
    assertThat(
            result.strategies().stream()
                .mapToLong(LabResult.StrategyRow::duplicatesAtIntegrator)
                .sum())
        .isEqualTo(integrator.duplicateAttempts());
    assertThat(integrator.injected(IntegratorFault.TRANSIENT_FAILURE)).isPositive();
    assertThat(integrator.injected(IntegratorFault.REJECTION)).isPositive();
  }

  @Test
  void maxPlusOneAtSendTimeOffersNumbersTwice() {
    LabResult.StrategyRow r = result.strategy(LabResult.Strategy.MAX_PLUS_ONE);
    assertThat(r.maxInFlight()).isGreaterThanOrEqualTo(2);
    assertThat(r.duplicatesAtIntegrator())
        .as("two workers read the same max() and sent one number for two invoices")
        .isPositive();
    // the integrator refused each second one, so it holds every number once
    assertThat(acceptedIn(r.series())).isEqualTo(r.issued());
    assertThat(r.calls())
        .as("the lab's count is the integrator's")
        .isEqualTo(submittedIn(r.series()));
  }

  @Test
  void numberingAtEnqueueTimeLeavesOneGapPerCancelledOrRejectedInvoice() {
    LabResult.StrategyRow r = result.strategy(LabResult.Strategy.ENQUEUE_TIME);
    assertThat(r.duplicatesAtIntegrator()).isZero();
    assertThat(r.highest()).as("every invoice took a number at creation").isEqualTo(200);
    assertThat(r.rejected()).isPositive();
    assertThat(r.gaps()).isEqualTo(r.cancelled() + r.rejected()).isEqualTo(200 - r.issued());
  }

  @Test
  void oneTransactionWithTheCallInsideIsCleanButSendsOneAtATime() {
    LabResult.StrategyRow r = result.strategy(LabResult.Strategy.CALL_IN_TRANSACTION);
    LabResult.StrategyRow jit = result.strategy(LabResult.Strategy.JUST_IN_TIME);
    assertThat(r.duplicatesAtIntegrator()).isZero();
    assertThat(r.gaps()).isZero();
    assertThat(r.duplicateNumbers()).isZero();
    assertThat(r.highest()).isEqualTo(r.issued());
    assertThat(acceptedIn(r.series())).isEqualTo(r.issued());
    assertThat(r.maxInFlight())
        .as("4 workers, but the counter row's lock lets one integrator call through at a time")
        .isEqualTo(1);
    assertThat(jit.maxInFlight()).isGreaterThanOrEqualTo(2);
    System.out.printf(
        "invoices/s: call inside the transaction %.1f, just-in-time %.1f (%.1fx)%n",
        r.invoicesPerSecond(),
        jit.invoicesPerSecond(),
        jit.invoicesPerSecond() / r.invoicesPerSecond());
  }

  @Test
  void justInTimeReservationHasNoDuplicateAndNoGap() {
    LabResult.StrategyRow r = result.strategy(LabResult.Strategy.JUST_IN_TIME);
    assertThat(r.duplicatesAtIntegrator()).isZero();
    assertThat(r.gaps()).isZero();
    assertThat(r.duplicateNumbers()).isZero();
    assertThat(r.highest())
        .as("numbers 1..N: issued, or kept in ERROR; cancelled drafts took none")
        .isEqualTo(r.issued() + r.rejected());
    assertThat(r.maxInFlight()).isGreaterThanOrEqualTo(2);
    Map<String, Long> byStatus =
        dsl
            .select(INVOICE.STATUS)
            .from(INVOICE)
            .where(INVOICE.SERIES.eq(r.series()))
            .fetch()
            .stream()
            .collect(Collectors.groupingBy(x -> x.value1(), Collectors.counting()));
    assertThat(byStatus)
        .containsEntry(InvoiceStatus.ISSUED.name(), (long) r.issued())
        .containsEntry(InvoiceStatus.CANCELLED.name(), 20L);
    assertThat(
            dsl.fetchCount(
                INVOICE,
                INVOICE
                    .SERIES
                    .eq(r.series())
                    .and(INVOICE.STATUS.eq(InvoiceStatus.CANCELLED.name()))
                    .and(INVOICE.NUMBER.isNotNull())))
        .as("a cancelled draft holds no number")
        .isZero();
    assertThat(acceptedIn(r.series())).isEqualTo(r.issued());
    assertThat(result.projectWayHolds()).isTrue();
  }

  @Test
  void theNaiveConsumerInvoicesAndChargesAnOrderDeliveredTwiceMoreThanOnce() {
    LabResult.ConsumerRow r = result.consumer(LabResult.ConsumerWay.NAIVE_CHECK_THEN_ACT);
    assertThat(r.orders()).isEqualTo(20);
    assertThat(r.deliveries()).isEqualTo(80);
    assertThat(r.invoices()).isGreaterThan(r.orders());
    assertThat(r.charges()).isGreaterThan(r.orders());
    assertThat(r.ordersInvoicedMoreThanOnce()).isPositive();
    assertThat(r.ordersChargedMoreThanOnce()).isPositive();
    // the gateway saw it too: one charge per invoice row, several for some orders
    assertThat(chargesAtGateway(r)).isEqualTo(r.charges()).isEqualTo(r.invoices());
  }

  @Test
  void theInboxWayMakesOneInvoiceAndOneChargePerOrder() {
    LabResult.ConsumerRow r = result.consumer(LabResult.ConsumerWay.INBOX);
    assertThat(r.orders()).isEqualTo(20);
    assertThat(r.invoices()).isEqualTo(20);
    assertThat(r.charges()).isEqualTo(20);
    assertThat(r.ordersInvoicedMoreThanOnce()).isZero();
    assertThat(r.ordersChargedMoreThanOnce()).isZero();
    assertThat(r.skippedByInbox()).as("3 of 4 deliveries per order").isEqualTo(60);
    for (UUID orderId : r.orderIds()) {
      assertThat(gateway.chargesFor(orderId.toString())).as("charges for " + orderId).hasSize(1);
    }
  }

  private static long chargesAtGateway(LabResult.ConsumerRow r) {
    return r.orderIds().stream().mapToLong(o -> gateway.chargesFor(o.toString()).size()).sum();
  }

  private static long acceptedIn(String series) {
    return integrator.accepted().keySet().stream()
        .map(InvoiceNumber::series)
        .filter(series::equals)
        .count();
  }

  private static long submittedIn(String series) {
    return integrator.submissions().entrySet().stream()
        .filter(e -> e.getKey().series().equals(series))
        .mapToLong(Map.Entry::getValue)
        .sum();
  }
}
