package dev.ordinal.lab.numbering;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.lab.numbering.LabTables.CREATED_AT;
import static dev.ordinal.lab.numbering.LabTables.MESSAGE_ID;
import static dev.ordinal.lab.numbering.LabTables.NAIVE_INVOICE;
import static dev.ordinal.lab.numbering.LabTables.ORDER_ID;
import static dev.ordinal.lab.numbering.LabTables.TOTAL;

import dev.ordinal.billing.BillingService;
import dev.ordinal.billing.HttpPaymentGateway;
import dev.ordinal.billing.IntegratorException;
import dev.ordinal.billing.InvoiceHandler;
import dev.ordinal.billing.PaymentCollector;
import dev.ordinal.messaging.inbox.Envelope;
import dev.ordinal.messaging.inbox.InboxConsumer;
import dev.ordinal.messaging.inbox.MessageHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigDecimal;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Table;
import org.jooq.impl.DSL;

/**
 * One order's message applied by {@code deliveries} threads at once (a redelivery racing the first
 * delivery at consumer concurrency 4), for {@code consumerOrders} orders, two ways:
 *
 * <ul>
 *   <li>naive check-then-act: {@code SELECT count(*) ... WHERE order_id = ?}, insert if 0 (no
 *       unique constraint, no inbox), then charge with a fresh idempotency key per attempt;
 *   <li>the project's way: the inbox row (message id, consumer) first, then billing's {@link
 *       InvoiceHandler} ({@code ON CONFLICT (order_id) DO NOTHING}), in one transaction, exactly as
 *       {@link InboxConsumer} applies a record; the charge by billing's {@link PaymentCollector}
 *       with the order id as idempotency key.
 * </ul>
 *
 * Both get the same pause ({@link LabConfig#raceWindow()}) between their check and their write.
 */
record DoubleDeliveryRace(
    DSLContext dsl,
    URI gateway,
    SimulatorAdmin admin,
    Clock clock,
    LabConfig config,
    String series) {
  private static final Duration DEADLINE = Duration.ofSeconds(30);

  LabResult.ConsumerRow naive() {
    LabTables.recreateNaive(dsl);
    RecordingPaymentGateway charges =
        new RecordingPaymentGateway(new FreshKeyPaymentGateway(gateway));
    long chargesBefore = admin.gatewayCharges();
    List<UUID> orderIds = new ArrayList<>();
    for (int i = 0; i < config.consumerOrders(); i++) {
      UUID orderId = UUID.randomUUID();
      String messageId = UUID.randomUUID().toString();
      BigDecimal total = BigDecimal.valueOf(2_000 + i, 2);
      orderIds.add(orderId);
      race(() -> applyNaively(orderId, messageId, total, charges));
    }
    return new LabResult.ConsumerRow(
        LabResult.ConsumerWay.NAIVE_CHECK_THEN_ACT,
        orderIds.size(),
        orderIds.size() * config.deliveries(),
        dsl.fetchCount(NAIVE_INVOICE, ORDER_ID.in(orderIds)),
        admin.gatewayCharges() - chargesBefore,
        moreThanOnce(NAIVE_INVOICE, ORDER_ID, orderIds),
        (int) orderIds.stream().filter(o -> charges.chargesFor(o) > 1).count(),
        0,
        List.copyOf(orderIds));
  }

  private void applyNaively(
      UUID orderId, String messageId, BigDecimal total, RecordingPaymentGateway charges) {
    boolean created =
        dsl.transactionResult(
            c -> {
              DSLContext tx = c.dsl();
              if (tx.fetchCount(NAIVE_INVOICE, ORDER_ID.eq(orderId)) > 0) {
                return false; // "already invoiced"
              }
              pause();
              tx.insertInto(NAIVE_INVOICE)
                  .set(ORDER_ID, orderId)
                  .set(MESSAGE_ID, messageId)
                  .set(TOTAL, total)
                  .set(CREATED_AT, OffsetDateTime.now(clock))
                  .execute();
              return true;
            });
    if (created) {
      try {
        charges.charge(orderId, total, "EUR");
      } catch (IntegratorException e) {
        throw new LabException("The naive charge for " + orderId + " failed: " + e, e);
      }
    }
  }

  LabResult.ConsumerRow inbox() {
    InvoiceHandler billing = new InvoiceHandler(clock);
    MessageHandler handler =
        new MessageHandler() {
          @Override
          public Field<?> lockFor(Envelope message) {
            return billing.lockFor(message);
          }

          @Override
          public void handle(DSLContext tx, Envelope message) {
            pause(); // the same window as the naive consumer's, after the inbox row
            billing.handle(tx, message);
          }
        };
    RecordingPaymentGateway charges =
        new RecordingPaymentGateway(new HttpPaymentGateway(gateway, Duration.ofSeconds(5)));
    PaymentCollector collector = new PaymentCollector(dsl, charges, 1, new SimpleMeterRegistry());
    AtomicInteger skipped = new AtomicInteger();
    long chargesBefore = admin.gatewayCharges();
    List<UUID> orderIds = new ArrayList<>();
    for (int i = 0; i < config.consumerOrders(); i++) {
      UUID orderId = UUID.randomUUID();
      Envelope message =
          LabOrders.placedMessage(
              UUID.randomUUID().toString(), orderId, BigDecimal.valueOf(3_000 + i, 2), series);
      orderIds.add(orderId);
      race(
          () -> {
            applyThroughInbox(message, handler, skipped);
            collector.drain();
          });
    }
    LabResult.ConsumerRow row =
        new LabResult.ConsumerRow(
            LabResult.ConsumerWay.INBOX,
            orderIds.size(),
            orderIds.size() * config.deliveries(),
            dsl.fetchCount(INVOICE, INVOICE.ORDER_ID.in(orderIds)),
            admin.gatewayCharges() - chargesBefore,
            moreThanOnce(INVOICE, INVOICE.ORDER_ID, orderIds),
            (int) orderIds.stream().filter(o -> charges.chargesFor(o) > 1).count(),
            skipped.get(),
            List.copyOf(orderIds));
    // nothing of the race is left for the issuer: its drafts are cancelled (they take no number)
    LabOrders orders = new LabOrders(billing);
    for (UUID orderId : orderIds) {
      dsl.transaction(c -> orders.cancelled(c.dsl(), orderId));
    }
    return row;
  }

  /** What {@link InboxConsumer} does with one record: inbox row first, then the handler. */
  private void applyThroughInbox(Envelope message, MessageHandler handler, AtomicInteger skipped) {
    if (!InboxConsumer.applyOnce(dsl, BillingService.CONSUMER_NAME, handler, message, clock)) {
      skipped.incrementAndGet();
    }
  }

  private int moreThanOnce(Table<?> table, Field<UUID> orderId, List<UUID> orderIds) {
    return dsl.fetchCount(
        DSL.select(orderId)
            .from(table)
            .where(orderId.in(orderIds))
            .groupBy(orderId)
            .having(DSL.count().gt(1)));
  }

  /** Runs {@code delivery} on {@code deliveries} threads released together; waits for all. */
  private void race(Runnable delivery) {
    int n = config.deliveries();
    ExecutorService pool = Executors.newFixedThreadPool(n, r -> new Thread(r, "lab-delivery"));
    CountDownLatch ready = new CountDownLatch(n);
    CountDownLatch go = new CountDownLatch(1);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        running.add(
            pool.submit(
                () -> {
                  ready.countDown();
                  go.await();
                  delivery.run();
                  return null;
                }));
      }
      ready.await();
      go.countDown();
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      for (Future<?> f : running) {
        f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      }
    } catch (ExecutionException e) {
      throw new LabException("A delivery failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new LabException("The deliveries did not finish in " + DEADLINE, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LabException("Interrupted during the double-delivery race", e);
    } finally {
      pool.shutdownNow();
    }
  }

  private void pause() {
    try {
      TimeUnit.NANOSECONDS.sleep(config.raceWindow().toNanos());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LabException("Interrupted in the race window", e);
    }
  }
}
