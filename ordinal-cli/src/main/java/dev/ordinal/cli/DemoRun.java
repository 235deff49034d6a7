package dev.ordinal.cli;

import static dev.ordinal.billing.db.Tables.INVOICE;
import static dev.ordinal.billing.db.Tables.PAYMENT;
import static dev.ordinal.messaging.db.Tables.INBOX;
import static dev.ordinal.messaging.db.Tables.OUTBOX;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ordinal.billing.BillingService;
import dev.ordinal.billing.GapAudit;
import dev.ordinal.billing.InvoiceIssuer;
import dev.ordinal.billing.InvoiceStatus;
import dev.ordinal.infra.Stack;
import dev.ordinal.infra.StackConfig;
import dev.ordinal.infra.sim.IntegratorSimulator;
import dev.ordinal.infra.sim.PaymentGatewaySimulator;
import dev.ordinal.messaging.InboxConsumer;
import dev.ordinal.messaging.MessageHeaders;
import dev.ordinal.messaging.db.tables.records.InboxRecord;
import dev.ordinal.order.NewOrder;
import dev.ordinal.order.OrderService;
import dev.ordinal.order.PlacedOrder;
import dev.ordinal.relay.OutboxRelay;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jooq.DSLContext;

/**
 * The demo, in one process: every part is the real thing (PostgreSQL, Kafka, Debezium), wired the
 * way the services wire them. Everything it starts is stopped on return and on Ctrl-C.
 */
final class DemoRun {
  private static final String[] CURRENCIES = {"EUR", "USD", "GBP"};
  private static final String[] SERIES = {"F2026-A", "F2026-B"};
  private static final ObjectMapper JSON = new ObjectMapper();

  private final StackConfig stackConfig;
  private final int orders;
  private final Duration timeout;
  private final PrintWriter out;
  private final boolean json;
  private final Clock clock = Clock.systemUTC();
  private final Deque<AutoCloseable> resources = new ArrayDeque<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private boolean stepOpen;

  DemoRun(StackConfig stackConfig, int orders, Duration timeout, PrintWriter out, boolean json) {
    this.stackConfig = stackConfig;
    this.orders = orders;
    this.timeout = timeout;
    this.out = out;
    this.json = json;
  }

  /** Returns true when every check held. */
  boolean run() throws Exception {
    Thread hook = new Thread(this::closeAll, "ordinal-demo-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      return runChecked();
    } catch (Exception | Error e) {
      if (stepOpen) {
        out.println("failed");
        out.flush();
      }
      throw e;
    } finally {
      closeAll();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running already
      }
    }
  }

  private boolean runChecked() throws Exception {
    LocalSystem system =
        keep(
            LocalSystem.start(
                stackConfig,
                LocalSystem.Ports.free(),
                true,
                clock,
                new LocalSystem.Steps() {
                  @Override
                  public void step(String what) {
                    DemoRun.this.step(what);
                  }

                  @Override
                  public void done(String detail, long startNanos) {
                    DemoRun.this.done(detail, startNanos);
                  }
                }));
    Stack stack = system.stack;
    DSLContext orderDb = system.orderDb;
    DSLContext billingDb = system.billingDb;
    OutboxRelay relay = system.relay;
    InboxConsumer billing = system.billing;
    IntegratorSimulator integrator = system.integrator;
    PaymentGatewaySimulator gateway = system.gateway;
    InvoiceIssuer issuer = system.issuer;
    CallOverlap overlap = system.overlap;
    String topic = system.topic;
    OrderService orderService = system.orderService;
    // one order whose transaction rolls back: it must leave no trace anywhere downstream
    AtomicReference<PlacedOrder> rolledBack = new AtomicReference<>();
    try {
      orderDb.transaction(
          c -> {
            rolledBack.set(
                orderService.place(c.dsl(), NewOrder.single("phantom", "EUR", BigDecimal.ONE)));
            throw new IllegalStateException("rolled back on purpose");
          });
    } catch (IllegalStateException expected) {
      // the order and its event are gone with the transaction
    }
    Map<UUID, Instant> committedAt = new HashMap<>();
    List<PlacedOrder> placed = new ArrayList<>();
    out.printf("%nPlacing %d orders%n", orders);
    ThreadLocalRandom random = ThreadLocalRandom.current();
    for (int i = 0; i < orders; i++) {
      NewOrder single =
          NewOrder.single(
              "customer-" + (1 + random.nextInt(20)),
              CURRENCIES[random.nextInt(CURRENCIES.length)],
              BigDecimal.valueOf(random.nextLong(100, 100_000), 2));
      PlacedOrder p =
          orderService.place(
              new NewOrder(
                  single.customerId(),
                  single.currency(),
                  single.channel(),
                  SERIES[i % SERIES.length],
                  single.lines()));
      committedAt.put(p.orderId(), clock.instant());
      placed.add(p);
    }
    List<UUID> orderIds = placed.stream().map(PlacedOrder::orderId).toList();
    List<String> messageIds = placed.stream().map(p -> p.messageId().toString()).toList();

    boolean allInvoiced =
        waitFor(
            () -> issued(billingDb, orderIds) == orders && charged(billingDb, orderIds) == orders,
            () ->
                String.format(
                    "placed %d, relayed %d, invoices %d, issued %d, charged %d",
                    orders,
                    relay.relayed(),
                    invoices(billingDb, orderIds),
                    issued(billingDb, orderIds),
                    charged(billingDb, orderIds)));

    boolean redeliveryIgnored = false;
    int invoicesAfterRedelivery = invoices(billingDb, orderIds);
    if (allInvoiced) {
      out.println("Redelivering the first order's record to Kafka (same message id)");
      long duplicatesBefore = billing.duplicates();
      InboxRecord first =
          billingDb
              .selectFrom(INBOX)
              .where(INBOX.MESSAGE_ID.eq(messageIds.get(0)))
              .and(INBOX.CONSUMER.eq(BillingService.CONSUMER_NAME))
              .fetchOne();
      redeliver(stack.kafkaBootstrap(), first);
      redeliveryIgnored =
          waitFor(
              () -> billing.duplicates() == duplicatesBefore + 1,
              () -> "duplicates skipped " + (billing.duplicates() - duplicatesBefore));
      invoicesAfterRedelivery = invoices(billingDb, orderIds);
    }

    List<UUID> cancelled = new ArrayList<>();
    if (allInvoiced) {
      for (int i = 0; i < placed.size(); i += 10) {
        cancelled.add(placed.get(i).orderId());
        orderService.cancel(placed.get(i).orderId(), "demo: cancelled after issue");
      }
      out.printf(
          "Cancelling %d issued orders (OrderCancelled after OrderPlaced)%n", cancelled.size());
      long appliedBefore = billing.applied();
      waitFor(
          () -> billing.applied() >= appliedBefore + cancelled.size(),
          () -> "cancellations applied " + (billing.applied() - appliedBefore));
    }
    Map<String, List<String>> eventsByOrder = readEventTypes(stack.kafkaBootstrap(), topic);
    boolean allPublished =
        orderIds.stream()
                .allMatch(
                    id ->
                        eventsByOrder
                            .getOrDefault(id.toString(), List.of())
                            .contains("OrderPlaced"))
            && cancelled.stream()
                .allMatch(
                    id ->
                        eventsByOrder
                            .getOrDefault(id.toString(), List.of())
                            .contains("OrderCancelled"));
    boolean inCommitOrder =
        eventsByOrder.values().stream()
            .allMatch(
                types ->
                    !types.contains("OrderCancelled")
                        || types.indexOf("OrderPlaced") < types.indexOf("OrderCancelled"));
    String phantomId = rolledBack.get().orderId().toString();
    boolean noPhantom =
        !eventsByOrder.containsKey(phantomId)
            && billingDb.fetchCount(INVOICE, INVOICE.ORDER_ID.eq(rolledBack.get().orderId())) == 0
            && orderDb.fetchCount(OUTBOX, OUTBOX.ID.eq(rolledBack.get().messageId())) == 0;

    int outboxRows =
        orderDb.fetchCount(
            OUTBOX, OUTBOX.ID.in(placed.stream().map(PlacedOrder::messageId).toList()));
    int inboxRows = billingDb.fetchCount(INBOX, INBOX.MESSAGE_ID.in(messageIds));
    List<Long> latencies = latenciesMillis(billingDb, committedAt);

    out.println();
    out.println("Summary");
    out.printf("  orders placed           %6d%n", orders);
    out.printf("  outbox rows             %6d  (written in the order's transaction)%n", outboxRows);
    out.printf(
        "  events relayed          %6d  (OrderPlaced and OrderCancelled; Debezium -> Kafka, acks=all)%n",
        relay.relayed());
    out.printf("  inbox rows              %6d  (one per message id)%n", inboxRows);
    out.printf("  invoices                %6d  (one per order)%n", invoicesAfterRedelivery);
    out.printf("  duplicates skipped      %6d  (after 1 redelivery)%n", billing.duplicates());
    int issuedCount = issued(billingDb, orderIds);
    out.printf(
        "  invoices issued         %6d  (integrator accepted %d, %d numbers offered twice, %d repaired by look-up)%n",
        issuedCount, integrator.acceptedCount(), integrator.duplicateAttempts(), issuer.repaired());
    out.printf(
        "  charges                 %6d  (gateway holds %d; %d refunded after a cancellation)%n",
        charged(billingDb, orderIds) + refunded(billingDb, orderIds),
        gateway.charges(),
        refunded(billingDb, orderIds));
    List<GapAudit.SeriesReport> audit = new GapAudit(billingDb).run(null);
    boolean auditClean = !audit.isEmpty();
    for (GapAudit.SeriesReport r : audit) {
      auditClean &= r.clean();
      out.printf(
          "  series %-10s       numbers 1..%d, %s%n",
          r.series(),
          r.highest(),
          r.clean()
              ? "no gap, no duplicate"
              : r.gaps().size() + " gaps, " + r.duplicates().size() + " duplicates");
    }
    if (!latencies.isEmpty()) {
      out.printf(
          "  commit -> issued        p50 %d ms, max %d ms%n",
          latencies.get(latencies.size() / 2), latencies.get(latencies.size() - 1));
    }
    int numberedNotAccounted =
        billingDb.fetchCount(
            INVOICE,
            INVOICE.NUMBER.isNotNull().and(INVOICE.STATUS.notIn("ISSUED", "ERROR", "VOIDED")));
    Map<String, Boolean> invariants = new LinkedHashMap<>();
    invariants.put("no_lost_event", allInvoiced && allPublished && outboxRows == orders);
    invariants.put("no_phantom_event", noPhantom);
    invariants.put("order_per_aggregate", inCommitOrder && allPublished);
    invariants.put(
        "effectively_once", redeliveryIgnored && inboxRows == orders && billing.duplicates() == 1);
    invariants.put(
        "one_invoice_one_charge_per_order",
        invoicesAfterRedelivery == orders && gateway.charges() == orders);
    invariants.put(
        "gapless_unique_numbers",
        auditClean
            && issuedCount == orders
            && integrator.duplicateAttempts() == 0
            && numberedNotAccounted == 0);
    invariants.put("no_lock_across_network_io", overlap.maxSameSeriesOverlap() >= 2);
    out.printf(
        "  same-series integrator calls in flight at once: up to %d (no series lock held across the call)%n",
        overlap.maxSameSeriesOverlap());
    out.println();
    out.println("Invariants (DESIGN.md)");
    invariants.forEach((k, v) -> out.printf("  %-34s %s%n", k, v ? "held" : "BROKEN"));
    boolean ok = invariants.values().stream().allMatch(Boolean::booleanValue);
    out.println();
    out.println(
        ok
            ? "OK: every order was invoiced, numbered and charged exactly once; every series is"
                + " gapless; the redelivered record changed nothing."
            : "FAILED: see the counts above; the log is in " + logFile());
    if (json) {
      ObjectNode summary = JSON.createObjectNode();
      summary.put("orders", orders);
      summary.put("outboxRows", outboxRows);
      summary.put("relayed", relay.relayed());
      summary.put("inboxRows", inboxRows);
      summary.put("invoices", invoicesAfterRedelivery);
      summary.put("issued", issuedCount);
      summary.put("charges", gateway.charges());
      summary.put("duplicatesSkipped", billing.duplicates());
      summary.put("cancelled", cancelled.size());
      summary.put("integratorAccepted", integrator.acceptedCount());
      summary.put("integratorDuplicateAttempts", integrator.duplicateAttempts());
      summary.put("repairedByLookup", issuer.repaired());
      ObjectNode series = summary.putObject("series");
      for (GapAudit.SeriesReport r : audit) {
        series
            .putObject(r.series())
            .put("highest", r.highest())
            .put("gaps", r.gaps().size())
            .put("duplicates", r.duplicates().size());
      }
      if (!latencies.isEmpty()) {
        summary.put("commitToIssuedP50Ms", latencies.get(latencies.size() / 2));
        summary.put("commitToIssuedMaxMs", latencies.get(latencies.size() - 1));
      }
      ObjectNode inv = summary.putObject("invariants");
      invariants.forEach(inv::put);
      summary.put("ok", ok);
      out.println(summary.toString());
    }
    out.flush();
    return ok;
  }

  /** Event types per order key, in topic order, read from the beginning of the topic. */
  private static Map<String, List<String>> readEventTypes(String bootstrap, String topic) {
    Map<String, List<String>> byKey = new HashMap<>();
    try (KafkaConsumer<String, String> reader =
        new KafkaConsumer<>(
            Map.<String, Object>of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
            new StringDeserializer(),
            new StringDeserializer())) {
      List<TopicPartition> partitions =
          reader.partitionsFor(topic).stream()
              .map(p -> new TopicPartition(topic, p.partition()))
              .toList();
      reader.assign(partitions);
      reader.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = reader.endOffsets(partitions);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (partitions.stream().anyMatch(tp -> reader.position(tp) < end.get(tp))
          && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : reader.poll(Duration.ofMillis(200))) {
          byKey
              .computeIfAbsent(r.key(), k -> new ArrayList<>())
              .add(MessageHeaders.get(r.headers(), MessageHeaders.EVENT_TYPE).orElse("?"));
        }
      }
    }
    return byKey;
  }

  private static int issued(DSLContext billingDb, List<UUID> orderIds) {
    return billingDb.fetchCount(
        INVOICE, INVOICE.ORDER_ID.in(orderIds).and(INVOICE.STATUS.eq(InvoiceStatus.ISSUED.name())));
  }

  private static int refunded(DSLContext billingDb, List<UUID> orderIds) {
    return billingDb.fetchCount(
        PAYMENT, PAYMENT.ORDER_ID.in(orderIds).and(PAYMENT.STATUS.eq("REFUNDED")));
  }

  private static int charged(DSLContext billingDb, List<UUID> orderIds) {
    return billingDb.fetchCount(
        PAYMENT, PAYMENT.ORDER_ID.in(orderIds).and(PAYMENT.STATUS.eq("CAPTURED")));
  }

  private static int invoices(DSLContext billingDb, List<UUID> orderIds) {
    return billingDb.fetchCount(INVOICE, INVOICE.ORDER_ID.in(orderIds));
  }

  private List<Long> latenciesMillis(DSLContext billingDb, Map<UUID, Instant> committedAt) {
    List<Long> ms = new ArrayList<>();
    billingDb
        .select(INVOICE.ORDER_ID, INVOICE.ISSUED_AT)
        .from(INVOICE)
        .where(INVOICE.ORDER_ID.in(committedAt.keySet()))
        .and(INVOICE.ISSUED_AT.isNotNull())
        .forEach(
            r ->
                ms.add(
                    Duration.between(committedAt.get(r.value1()), r.value2().toInstant())
                        .toMillis()));
    ms.sort(null);
    return ms;
  }

  /** Reads the record the inbox says it applied, and produces it again unchanged. */
  private static void redeliver(String bootstrap, InboxRecord applied) throws Exception {
    TopicPartition tp = new TopicPartition(applied.getTopic(), applied.getPartitionNo());
    ConsumerRecord<String, String> original = null;
    try (KafkaConsumer<String, String> reader =
        new KafkaConsumer<>(
            Map.<String, Object>of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap),
            new StringDeserializer(),
            new StringDeserializer())) {
      reader.assign(List.of(tp));
      reader.seek(tp, applied.getRecordOffset());
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (original == null && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : reader.poll(Duration.ofMillis(200))) {
          if (r.offset() == applied.getRecordOffset()) {
            original = r;
          }
        }
      }
    }
    if (original == null) {
      throw new IllegalStateException(
          "Could not read back " + tp + "@" + applied.getRecordOffset());
    }
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            Map.<String, Object>of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ProducerConfig.ACKS_CONFIG,
                "all"),
            new StringSerializer(),
            new StringSerializer())) {
      producer
          .send(
              new ProducerRecord<>(
                  original.topic(),
                  original.partition(),
                  original.key(),
                  original.value(),
                  original.headers()))
          .get();
    }
  }

  /** Polls {@code condition} until it holds or the timeout passes, showing progress. */
  private boolean waitFor(BooleanSupplier condition, java.util.function.Supplier<String> progress)
      throws InterruptedException {
    boolean tty = System.console() != null;
    long deadline = System.nanoTime() + timeout.toNanos();
    long nextLine = 0;
    while (true) {
      boolean holds = condition.getAsBoolean();
      long now = System.nanoTime();
      if (tty) {
        out.print("\r  " + progress.get() + "   ");
        out.flush();
      } else if (holds || now >= nextLine) {
        out.println("  " + progress.get());
        out.flush();
        nextLine = now + Duration.ofSeconds(2).toNanos();
      }
      if (holds || now >= deadline) {
        if (tty) {
          out.println();
        }
        return holds;
      }
      Thread.sleep(50);
    }
  }

  private void step(String what) {
    out.print(what + " ... ");
    out.flush();
    stepOpen = true;
  }

  private void done(String detail, long startNanos) {
    stepOpen = false;
    out.printf("ok (%s, %d ms)%n", detail, (System.nanoTime() - startNanos) / 1_000_000);
    out.flush();
  }

  private <T extends AutoCloseable> T keep(T resource) {
    resources.push(resource);
    return resource;
  }

  private void closeAll() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    while (!resources.isEmpty()) {
      try {
        resources.pop().close();
      } catch (Exception e) {
        out.println("warning: stopping a part of the demo failed: " + e.getMessage());
      }
    }
    out.flush();
  }

  private static Path logFile() {
    String home = System.getenv(StackConfig.ENV_HOME);
    return (home == null ? StackConfig.DEFAULT_HOME : Path.of(home)).resolve("logs/ordinal.log");
  }
}
