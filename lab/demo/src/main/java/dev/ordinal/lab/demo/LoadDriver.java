package dev.ordinal.lab.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ordinal.contracts.AggregateType;
import dev.ordinal.contracts.EventCodec;
import dev.ordinal.contracts.OrderPlacedV1;
import dev.ordinal.order.BulkOrderProducer;
import dev.ordinal.order.Channel;
import dev.ordinal.order.NewOrder;
import dev.ordinal.order.OrderClient;
import dev.ordinal.order.OrderService;
import dev.ordinal.order.PlacedOrder;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.jooq.DSLContext;

/**
 * The demo's order mix: interactive orders over HTTP round-robin over three invoice series, one in
 * ten sent again with the same {@code Idempotency-Key}; bulk batches of 20 every 3-5 s; about one
 * cancellation a second; and, through the {@link TopicObserver} it owns, 5 % of the {@code
 * OrderPlaced} records redelivered (same message id) and 4 % re-published (new message id). With
 * chaos, 5 cancellations delivered before their orders. It counts what it did, for the evidence and
 * the summary.
 */
final class LoadDriver implements AutoCloseable {
  static final List<String> SERIES = List.of("F2026-A", "F2026-B", "F2026-C");
  static final String BULK_SERIES = "B2026-BULK";

  /** Requests in flight at most when placing at a fixed rate. */
  static final int MAX_IN_FLIGHT = 64;

  /** Orders whose cancellation --chaos delivers before their placement. */
  static final int CANCEL_BEFORE_PLACE = 5;

  /** Shares of the {@code OrderPlaced} records redelivered and re-published. */
  static final double REDELIVER_SHARE = 0.05;

  static final double REPUBLISH_SHARE = 0.04;

  private static final String[] CURRENCIES = {"EUR", "USD", "GBP"};
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * How to drive.
   *
   * @param maxOrders stop after this many orders (0: no limit)
   * @param rate interactive orders per second, open loop; 0 for one at a time
   * @param chaos also deliver {@link #CANCEL_BEFORE_PLACE} cancellations before their orders
   */
  record Mix(Duration duration, int maxOrders, int rate, boolean chaos) {}

  /** One order the driver placed, as order-service answered. */
  record Placed(UUID orderId, String messageId, Instant committedAt, String series) {
    boolean bulk() {
      return BULK_SERIES.equals(series);
    }
  }

  private final OrderClient orders;
  private final URI orderApi;
  private final TopicObserver observer;
  private final SplittableRandom random;
  private final Console console;
  private final Map<UUID, Placed> placed = new ConcurrentHashMap<>();
  private final Set<UUID> cancelled = ConcurrentHashMap.newKeySet();
  private final Set<UUID> cancelledBeforePlaced = ConcurrentHashMap.newKeySet();
  private final AtomicInteger idempotentRetries = new AtomicInteger();
  private final AtomicInteger idempotentMismatches = new AtomicInteger();
  private final AtomicInteger retriesFailed = new AtomicInteger();
  private final AtomicInteger placeFailures = new AtomicInteger();
  private final AtomicInteger notAttempted = new AtomicInteger();

  /** Starts watching the order topics: what is written from here on is this run's. */
  LoadDriver(String kafka, URI orderApi, SplittableRandom random, Console console) {
    this.orderApi = orderApi;
    this.orders = new OrderClient(orderApi);
    this.random = random;
    this.console = console;
    this.observer =
        new TopicObserver(
            kafka,
            List.of(
                DemoCluster.topic(AggregateType.ORDER.wireName()),
                DemoCluster.topic(AggregateType.ORDER_BULK.wireName())),
            new TopicObserver.Duplicates(random.split(), REDELIVER_SHARE, REPUBLISH_SHARE));
  }

  TopicObserver observer() {
    return observer;
  }

  /** An order whose transaction rolls back: it must leave no trace anywhere downstream. */
  PlacedOrder placePhantom(DSLContext orderDb) {
    OrderService direct = new OrderService(orderDb, Clock.systemUTC());
    AtomicReference<PlacedOrder> rolledBack = new AtomicReference<>();
    try {
      orderDb.transaction(
          c -> {
            rolledBack.set(
                direct.place(c.dsl(), NewOrder.single("phantom", "EUR", BigDecimal.ONE)));
            throw new IllegalStateException("rolled back on purpose");
          });
    } catch (IllegalStateException expected) {
      // the order and its event are gone with the transaction
    }
    return rolledBack.get();
  }

  /**
   * Drives the mix for {@code mix.duration()} and as long as {@code faultsRunning}, or until the
   * order limit; {@code tick} shows the live line now and then. The injected duplicates stop when
   * it returns.
   */
  void drive(Mix mix, BooleanSupplier faultsRunning, Runnable tick) throws Exception {
    AtomicBoolean driving = new AtomicBoolean(true);
    SplittableRandom bulkRandom = random.split();
    Thread bulk = new Thread(() -> bulkLoop(mix, driving, bulkRandom), "ordinal-demo-bulk");
    bulk.setDaemon(true);
    bulk.start();
    if (mix.chaos()) {
      cancelBeforePlace();
    }
    long end = System.nanoTime() + mix.duration().toNanos();
    BooleanSupplier more =
        () ->
            (System.nanoTime() < end || faultsRunning.getAsBoolean())
                && !limitReached(mix)
                && !console.interrupted();
    if (mix.rate() > 0) {
      driveAtRate(mix.rate(), more, tick);
    } else {
      driveOneByOne(more, tick);
    }
    driving.set(false);
    bulk.join(Duration.ofSeconds(30).toMillis());
  }

  /** No more injected duplicates; returns when the ones sent are on Kafka. */
  void stopMisbehaving() {
    observer.stopMisbehaving();
  }

  /**
   * Delivers the cancellation of {@link #CANCEL_BEFORE_PLACE} new orders before their placement,
   * straight onto the orders topic: billing must leave each invoice CANCELLED without a number and
   * never charge it.
   */
  private void cancelBeforePlace() throws Exception {
    String topic = DemoCluster.topic(AggregateType.ORDER.wireName());
    for (int i = 0; i < CANCEL_BEFORE_PLACE; i++) {
      UUID order = UUID.randomUUID();
      cancelledBeforePlaced.add(order);
      observer.cancelBeforePlace(
          topic,
          order,
          EventCodec.toJson(
              new OrderPlacedV1(
                  order,
                  "out-of-order-" + i,
                  "EUR",
                  dev.ordinal.contracts.Channel.INTERACTIVE,
                  SERIES.get(0),
                  new BigDecimal("10.00"),
                  List.of(),
                  null)));
    }
  }

  private boolean limitReached(Mix mix) {
    return mix.maxOrders() > 0 && placed.size() >= mix.maxOrders();
  }

  private NewOrder nextOrder(int n) {
    NewOrder single =
        NewOrder.single(
            "customer-" + (1 + random.nextInt(50)),
            CURRENCIES[random.nextInt(CURRENCIES.length)],
            BigDecimal.valueOf(random.nextLong(100, 100_000), 2));
    return new NewOrder(
        single.customerId(),
        single.currency(),
        single.channel(),
        SERIES.get(n % SERIES.size()),
        single.lines());
  }

  /** One interactive order at a time, with a short pause between. */
  private void driveOneByOne(BooleanSupplier more, Runnable tick) throws InterruptedException {
    long nextProgress = 0;
    long nextCancel = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
    List<UUID> cancellable = new ArrayList<>();
    int n = 0;
    while (more.getAsBoolean()) {
      Placed p = placeInteractive(nextOrder(n++), random.nextInt(10) == 0);
      if (p != null) {
        cancellable.add(p.orderId());
      }
      long now = System.nanoTime();
      if (now >= nextCancel && !cancellable.isEmpty()) {
        // cancel one order of the last second: some before their invoice is issued, some after
        UUID victim = cancellable.get(random.nextInt(cancellable.size()));
        cancellable.clear();
        cancel(victim);
        nextCancel = now + TimeUnit.MILLISECONDS.toNanos(600 + random.nextInt(800));
      }
      if (now >= nextProgress) {
        tick.run();
        nextProgress = now + console.progressEvery().toNanos();
      }
      console.await(Duration.ofMillis(40 + random.nextInt(40))); // the pace of one client
    }
  }

  /**
   * Interactive orders at {@code rate} per second, open loop: each on a request of its own, up to
   * {@link #MAX_IN_FLIGHT} at once; a tick that finds them all busy (a server is away and requests
   * wait) is skipped and counted, so the load does not pile up behind an outage.
   */
  private void driveAtRate(int rate, BooleanSupplier more, Runnable tick)
      throws InterruptedException {
    ThreadPoolExecutor requests =
        new ThreadPoolExecutor(
            MAX_IN_FLIGHT,
            MAX_IN_FLIGHT,
            0,
            TimeUnit.MILLISECONDS,
            new SynchronousQueue<>(),
            r -> {
              Thread t = new Thread(r, "ordinal-demo-request");
              t.setDaemon(true);
              return t;
            },
            (r, pool) -> notAttempted.incrementAndGet());
    List<UUID> cancellable = Collections.synchronizedList(new ArrayList<>());
    long period = TimeUnit.SECONDS.toNanos(1) / rate;
    long next = System.nanoTime();
    long nextProgress = 0;
    long nextCancel = next + TimeUnit.SECONDS.toNanos(1);
    int n = 0;
    try {
      while (more.getAsBoolean()) {
        long now = System.nanoTime();
        if (now < next) {
          console.await(Duration.ofNanos(next - now));
          continue;
        }
        // a stall of the driver itself does not turn into a burst
        next = Math.max(next, now - TimeUnit.SECONDS.toNanos(1)) + period;
        NewOrder order = nextOrder(n++);
        boolean retry = random.nextInt(10) == 0;
        requests.execute(
            () -> {
              Placed p = placeInteractive(order, retry);
              if (p != null) {
                cancellable.add(p.orderId());
              }
            });
        if (now >= nextCancel) {
          cancelOneOf(cancellable, requests);
          nextCancel = now + TimeUnit.MILLISECONDS.toNanos(600 + random.nextInt(800));
        }
        if (now >= nextProgress) {
          tick.run();
          nextProgress = now + console.progressEvery().toNanos();
        }
      }
    } finally {
      requests.shutdown();
      requests.awaitTermination(60, TimeUnit.SECONDS);
    }
  }

  private void cancelOneOf(List<UUID> cancellable, ThreadPoolExecutor requests) {
    UUID victim = null;
    synchronized (cancellable) {
      if (!cancellable.isEmpty()) {
        victim = cancellable.get(random.nextInt(cancellable.size()));
        cancellable.clear();
      }
    }
    if (victim != null) {
      UUID v = victim;
      requests.execute(() -> cancel(v));
    }
  }

  private Placed placeInteractive(NewOrder order, boolean retry) {
    String key = UUID.randomUUID().toString();
    try {
      HttpResponse<String> r = orders.place(order, key);
      if (r.statusCode() != 201) {
        placeFailures.incrementAndGet();
        return null;
      }
      Placed p = record(r.body(), order.invoiceSeries());
      if (retry) {
        retry(order, key, p);
      }
      return p;
    } catch (IOException e) {
      placeFailures.incrementAndGet();
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** The client did not see the answer and retries: same key, so the same order. */
  private void retry(NewOrder order, String key, Placed first) throws InterruptedException {
    idempotentRetries.incrementAndGet();
    try {
      HttpResponse<String> again = orders.place(order, key);
      if (again.statusCode() >= 500) {
        // a server was away (a fault of the run): the retry failed, it did not differ
        retriesFailed.incrementAndGet();
      } else if (again.statusCode() != 201
          || !JSON.readTree(again.body())
              .get("orderId")
              .asText()
              .equals(first.orderId().toString())) {
        idempotentMismatches.incrementAndGet();
      }
    } catch (IOException e) {
      retriesFailed.incrementAndGet();
    }
  }

  private Placed record(String body, String series) throws IOException {
    JsonNode n = JSON.readTree(body);
    Placed p =
        new Placed(
            UUID.fromString(n.get("orderId").asText()),
            n.get("messageId").asText(),
            Instant.parse(n.get("createdAt").asText()),
            series);
    placed.put(p.orderId(), p);
    return p;
  }

  private void bulkLoop(Mix mix, AtomicBoolean driving, SplittableRandom random) {
    BulkOrderProducer producer =
        new BulkOrderProducer(
            order -> {
              HttpResponse<String> r = orders.place(order, null);
              if (r.statusCode() != 201) {
                placeFailures.incrementAndGet();
                throw new IOException("status " + r.statusCode());
              }
              record(r.body(), order.invoiceSeries());
            },
            2,
            Channel.BULK,
            BULK_SERIES);
    try {
      console.await(Duration.ofSeconds(2));
      while (driving.get() && !limitReached(mix)) {
        producer.run(20, 40, p -> {});
        console.await(Duration.ofSeconds(3 + random.nextInt(3)));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void cancel(UUID orderId) {
    try {
      HttpResponse<Void> r =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(orderApi.resolve("/orders/" + orderId + "/cancel"))
                      .timeout(Duration.ofSeconds(10))
                      .POST(HttpRequest.BodyPublishers.noBody())
                      .build(),
                  HttpResponse.BodyHandlers.discarding());
      if (r.statusCode() == 200) {
        cancelled.add(orderId);
      }
    } catch (IOException e) {
      // not cancelled: the order goes on like any other
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ---------------------------------------------------------------- what it did

  /** The orders placed so far. */
  Map<UUID, Placed> placed() {
    return Map.copyOf(placed);
  }

  /** By order placed, its message id. */
  Map<UUID, String> messageIds() {
    Map<UUID, String> ids = new HashMap<>();
    placed.forEach((id, p) -> ids.put(id, p.messageId()));
    return ids;
  }

  Set<UUID> cancelled() {
    return Set.copyOf(cancelled);
  }

  Set<UUID> cancelledBeforePlaced() {
    return Set.copyOf(cancelledBeforePlaced);
  }

  /** What the evidence names of the drive; {@code phantom} the rolled-back order. */
  EvidenceReader.Driven driven(PlacedOrder phantom) {
    return new EvidenceReader.Driven(
        placed.keySet(), cancelled(), cancelledBeforePlaced(), phantom, idempotentMismatches.get());
  }

  /** By order placed, when it was committed and in which lane. */
  Map<UUID, EvidenceReader.Committed> committed() {
    Map<UUID, EvidenceReader.Committed> c = new HashMap<>();
    placed.forEach(
        (id, p) ->
            c.put(id, new EvidenceReader.Committed(p.messageId(), p.committedAt(), p.bulk())));
    return c;
  }

  /** The summary's figures of the drive that the evidence does not hold. */
  DemoSummary.Run run(
      int rate, long driveSeconds, boolean chaos, List<FaultInjector.Outcome> faults) {
    return new DemoSummary.Run(
        (int) placed.values().stream().filter(Placed::bulk).count(),
        placeFailures.get(),
        idempotentRetries.get(),
        retriesFailed.get(),
        notAttempted.get(),
        MAX_IN_FLIGHT,
        rate,
        driveSeconds,
        chaos,
        faults);
  }

  @Override
  public void close() throws InterruptedException {
    observer.close();
  }
}
