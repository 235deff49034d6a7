package dev.ordinal.lab.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.billing.BillingService;
import dev.ordinal.billing.BillingSettings;
import dev.ordinal.lab.devstack.Stack;
import dev.ordinal.lab.devstack.StackConfig;
import dev.ordinal.lab.sim.IntegratorFaults;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.PaymentGatewayFaults;
import dev.ordinal.lab.sim.PaymentGatewaySimulator;
import dev.ordinal.messaging.Preflight;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.ops.lag.GroupLag;
import dev.ordinal.ops.lag.LagQuery;
import dev.ordinal.ops.lag.LagReader;
import dev.ordinal.ops.lag.LagReaderConfig;
import dev.ordinal.ops.lag.SlotLag;
import dev.ordinal.ops.lag.SlotLagReader;
import dev.ordinal.order.BulkOrderProducer;
import dev.ordinal.order.Channel;
import dev.ordinal.order.NewOrder;
import dev.ordinal.order.OrderClient;
import dev.ordinal.order.OrderEvents;
import dev.ordinal.order.OrderService;
import dev.ordinal.order.OrderServiceSettings;
import dev.ordinal.order.PlacedOrder;
import dev.ordinal.relay.RelayConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The demo: the embedded stack and the two external systems (integrator, payment gateway
 * simulators) in this process, each service in a process of its own (the CDC relay, two billing
 * instances in one consumer group, order-service), a load driver placing orders over
 * order-service's HTTP API, and, with chaos, SIGKILLs of the relay and of a billing instance. Then
 * every invariant of DESIGN.md is checked against what PostgreSQL, Kafka and the simulators hold.
 * Everything it starts is stopped on return and on Ctrl-C; the children also exit when this process
 * dies.
 */
final class DemoRun {
  static final String GROUP = "ordinal-demo-billing";
  static final String TOPIC_PREFIX = BillingSettings.DEFAULT_TOPIC_PREFIX;
  static final String ORDER_SCHEMA = OrderServiceSettings.DEFAULT_SCHEMA;
  static final String BILLING_SCHEMA = BillingSettings.DEFAULT_SCHEMA;

  /** The orders outbox's slot: the relay's default for schema {@code orders}. */
  static final String SLOT = RelayConfig.defaultName(ORDER_SCHEMA);

  static final List<String> SERIES = List.of("F2026-A", "F2026-B", "F2026-C");
  static final String BULK_SERIES = "B2026-BULK";

  /** Orders whose cancellation --chaos delivers before their placement. */
  static final int CANCEL_BEFORE_PLACE = 5;

  /** Share of integrator submissions --chaos has stored only after billing gave up on them. */
  static final double LATE_ACCEPT_RATE = 0.05;

  /** When a late accept is stored: after billing's 5 s client timeout. */
  static final Duration LATE_ACCEPT_AFTER = Duration.ofSeconds(6);

  private static final String[] CURRENCIES = {"EUR", "USD", "GBP"};
  private static final IntegratorFaults INTEGRATOR_FAULTS =
      IntegratorFaults.defaults()
          .withLatency(Duration.ofMillis(20), Duration.ofMillis(200))
          .withTransientFailureRate(0.05)
          .withDroppedAfterAcceptRate(0.05);
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * What to run.
   *
   * @param chaos kill the relay and billing instances and restart PostgreSQL and the broker while
   *     driving ({@link #chaosPlan})
   * @param rate interactive orders per second, placed open loop by up to {@link #MAX_IN_FLIGHT}
   *     requests at once; 0 for one request at a time with a short pause between
   * @param faults the faults injected while driving, one after the other, spread over the drive;
   *     empty with {@code chaos} for {@link #chaosPlan}
   */
  record Options(
      Duration duration,
      int maxOrders,
      Duration settleTimeout,
      boolean chaos,
      boolean json,
      long seed,
      int rate,
      List<FaultInjector.Fault> faults) {
    Options {
      if (duration.isNegative() || duration.isZero()) {
        throw new IllegalArgumentException("duration must be positive");
      }
      if (rate < 0) {
        throw new IllegalArgumentException("rate must not be negative");
      }
      faults = faults == null || faults.isEmpty() ? List.of() : List.copyOf(faults);
    }

    Options(
        Duration duration,
        int maxOrders,
        Duration settleTimeout,
        boolean chaos,
        boolean json,
        long seed) {
      this(duration, maxOrders, settleTimeout, chaos, json, seed, 0, List.of());
    }

    /** The faults of this run, in order. */
    List<FaultInjector.Fault> plan() {
      return !faults.isEmpty() ? faults : chaos ? chaosPlan(duration) : List.of();
    }
  }

  /** Requests in flight at most when placing at a fixed rate. */
  static final int MAX_IN_FLIGHT = 64;

  /**
   * The faults of {@code --chaos}: a SIGKILL of the relay, a PostgreSQL restart, a SIGKILL of a
   * billing instance, the broker down for 5 s, then one more kill per 15 s of drive beyond the
   * first 60 s, alternating.
   */
  static List<FaultInjector.Fault> chaosPlan(Duration duration) {
    List<FaultInjector.Fault> plan = new ArrayList<>();
    plan.add(FaultInjector.Fault.of(FaultInjector.Kind.KILL_RELAY));
    plan.add(FaultInjector.Fault.of(FaultInjector.Kind.PG_RESTART));
    plan.add(FaultInjector.Fault.of(FaultInjector.Kind.KILL_BILLING));
    plan.add(new FaultInjector.Fault(FaultInjector.Kind.KAFKA_DOWN, Duration.ofSeconds(5)));
    for (int i = 4; i < chaosRounds(duration); i++) {
      plan.add(
          FaultInjector.Fault.of(
              i % 2 == 0 ? FaultInjector.Kind.KILL_RELAY : FaultInjector.Kind.KILL_BILLING));
    }
    return plan;
  }

  /** One order the driver placed, as order-service answered. */
  record Placed(UUID orderId, String messageId, Instant committedAt, String series) {}

  private final StackConfig stackConfig;
  private final Options options;
  private final PrintWriter out;
  private final SplittableRandom random;
  private final Deque<AutoCloseable> resources = new ArrayDeque<>();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final CountDownLatch interrupted = new CountDownLatch(1);
  private final Map<UUID, Placed> placed = new ConcurrentHashMap<>();
  private final Set<UUID> cancelled = ConcurrentHashMap.newKeySet();
  private final Set<UUID> cancelledBeforePlaced = ConcurrentHashMap.newKeySet();
  private final AtomicInteger idempotentRetries = new AtomicInteger();
  private final AtomicInteger idempotentMismatches = new AtomicInteger();
  private final AtomicInteger retriesFailed = new AtomicInteger();
  private final AtomicInteger placeFailures = new AtomicInteger();
  private final AtomicInteger relayKills = new AtomicInteger();
  private final AtomicInteger billingKills = new AtomicInteger();
  private final AtomicInteger saturated = new AtomicInteger();
  private final List<FaultInjector.Outcome> faultOutcomes =
      java.util.Collections.synchronizedList(new ArrayList<>());
  private final Map<String, Double> bankedDuplicates = new ConcurrentHashMap<>();
  private volatile boolean faultsRunning;
  private final boolean tty = System.console() != null;
  private boolean stepOpen;

  private Stack stack;
  private DSLContext orderDb;
  private DSLContext billingDb;
  private DatabaseSettings db;
  private IntegratorSimulator integrator;
  private PaymentGatewaySimulator gateway;
  private TopicObserver observer;
  private EvidenceReader evidence;
  private ServiceProcess relay;
  private final List<ServiceProcess> billing = new ArrayList<>();
  private ServiceProcess orderServiceProcess;
  private OrderClient orders;
  private URI orderApi;
  private LagReader lagReader;
  private Path home;

  DemoRun(StackConfig stackConfig, Options options, PrintWriter out) {
    this.stackConfig = stackConfig;
    this.options = options;
    this.out = out;
    this.random = new SplittableRandom(options.seed());
  }

  /** Returns true when every invariant held. */
  boolean run() throws Exception {
    Thread hook =
        new Thread(
            () -> {
              interrupted.countDown();
              closeAll();
            },
            "ordinal-demo-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      return runChecked();
    } catch (Exception | Error e) {
      if (stepOpen) {
        out.println("failed");
        out.flush();
      }
      if (interrupted.getCount() == 0) {
        // Ctrl-C: the shutdown hook stops everything; what failed on the way is its doing
        out.println();
        out.println("Interrupted: stopping every process the demo started.");
        out.flush();
        return false;
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
    home = stackConfig.dataDir().toAbsolutePath().getParent();
    startServers();
    startServices();

    String interactiveTopic = TOPIC_PREFIX + "." + OrderEvents.AGGREGATE_TYPE;
    String bulkTopic = TOPIC_PREFIX + "." + OrderEvents.BULK_AGGREGATE_TYPE;
    observer =
        keep(
            new TopicObserver(
                stack.kafkaBootstrap(),
                List.of(interactiveTopic, bulkTopic),
                random.split(),
                0.05,
                0.04));
    lagReader = keep(new LagReader(LagReaderConfig.of(stack.kafkaBootstrap()), Clock.systemUTC()));
    evidence = new EvidenceReader(orderDb, billingDb, integrator, gateway, observer);

    PlacedOrder phantom = placePhantom();
    long driveStart = System.nanoTime();
    drive();
    observer.stopMisbehaving();
    double driveSeconds = (System.nanoTime() - driveStart) / 1e9;

    for (ServiceProcess p : processes()) {
      if (!p.isAlive()) {
        throw new IllegalStateException(p.name() + " is not running: " + lastLines(p.outputFile()));
      }
    }
    out.printf("%nWaiting until every order is relayed, invoiced, issued and charged%n");
    boolean settled =
        waitFor(options.settleTimeout(), this::settled, () -> progressLine() + settleDetail());
    return report(phantom, settled, driveSeconds);
  }

  // ---------------------------------------------------------------- start

  private void startServers() throws Exception {
    step("Starting the embedded stack (PostgreSQL 17, Kafka KRaft broker)");
    long t0 = System.nanoTime();
    stack = keep(Stack.start(stackConfig));
    db = new DatabaseSettings(stack.jdbcUrl(), stack.dbUser(), stack.dbPassword());
    Preflight.checkPostgres(db, true);
    Preflight.checkKafka(stack.kafkaBootstrap(), Preflight.DEFAULT_TIMEOUT);
    done("PostgreSQL " + db.redactedUrl() + ", Kafka " + stack.kafkaBootstrap(), t0);

    step("Migrating order-service and billing schemas, creating the topics");
    t0 = System.nanoTime();
    // a short connection timeout: the demo's own reads give up quickly while a fault keeps
    // PostgreSQL away
    HikariDataSource orderPool =
        keep(db.withSchema(ORDER_SCHEMA).pool("demo-orders", 3, Duration.ofSeconds(3)));
    HikariDataSource billingPool =
        keep(db.withSchema(BILLING_SCHEMA).pool("demo-billing", 3, Duration.ofSeconds(3)));
    OrderService.migrate(orderPool, ORDER_SCHEMA);
    BillingService.migrate(billingPool, BILLING_SCHEMA);
    orderDb = DSL.using(orderPool, SQLDialect.POSTGRES);
    billingDb = DSL.using(billingPool, SQLDialect.POSTGRES);
    for (String aggregate : List.of(OrderEvents.AGGREGATE_TYPE, OrderEvents.BULK_AGGREGATE_TYPE)) {
      Topics.ensure(
          stack.kafkaBootstrap(), TOPIC_PREFIX + "." + aggregate, Topics.DEFAULT_PARTITIONS);
    }
    done("Flyway", t0);

    step("Starting the integrator and payment gateway simulators");
    t0 = System.nanoTime();
    integrator =
        keep(
            new IntegratorSimulator(
                    0,
                    options.chaos()
                        ? INTEGRATOR_FAULTS
                            .withTimeouts(0, LATE_ACCEPT_AFTER)
                            .withLateAcceptRate(LATE_ACCEPT_RATE)
                        : INTEGRATOR_FAULTS,
                    random.split(),
                    Clock.systemUTC())
                .start());
    gateway =
        keep(
            new PaymentGatewaySimulator(
                    0,
                    PaymentGatewayFaults.defaults()
                        .withLatency(Duration.ofMillis(5), Duration.ofMillis(50)))
                .start());
    done(
        "integrator "
            + integrator.baseUri()
            + ": 20-200 ms, 5% transient failures, 5% accepted-then-dropped"
            + (options.chaos()
                ? ", 5% accepted late (stored 6 s after arriving, billing gives up at 5 s)"
                : ""),
        t0);
  }

  private void startServices() throws Exception {
    step("Starting the relay, 2 billing instances and order-service, each in its own JVM");
    long t0 = System.nanoTime();
    StackConfig servers =
        new StackConfig(
            dev.ordinal.lab.devstack.StackMode.EXTERNAL,
            stackConfig.dataDir(),
            false,
            false,
            stack.jdbcUrl(),
            stack.dbUser(),
            stack.dbPassword(),
            stack.kafkaBootstrap());
    relay =
        keep(
            new ServiceProcess(
                "relay",
                servers,
                home,
                freePort(),
                List.of(
                    "relay",
                    "--schema",
                    ORDER_SCHEMA + "," + BILLING_SCHEMA,
                    "--instance-id",
                    "relay",
                    "--heartbeat",
                    "PT1S")));
    for (int i = 1; i <= 2; i++) {
      billing.add(
          keep(
              new ServiceProcess(
                  "billing-" + i,
                  servers,
                  home,
                  freePort(),
                  List.of(
                      "billing",
                      "--instance-id",
                      "billing-" + i,
                      "--group",
                      GROUP,
                      "--concurrency",
                      "2",
                      "--issuer-workers",
                      "3",
                      "--issuer-lease",
                      "PT6S",
                      "--payment-lease",
                      "PT3S",
                      "--session-timeout",
                      "PT6S",
                      "--integrator-url",
                      integrator.baseUri().toString(),
                      "--gateway-url",
                      gateway.baseUri().toString()))));
    }
    int apiPort = freePort();
    orderServiceProcess =
        keep(
            new ServiceProcess(
                "order-service",
                servers,
                home,
                freePort(),
                List.of("order-service", "--port", "" + apiPort, "--pool-size", "4")));
    relay.start();
    for (ServiceProcess b : billing) {
      b.start();
    }
    orderServiceProcess.start();
    orderApi = URI.create("http://localhost:" + apiPort);
    orders = new OrderClient(orderApi);
    awaitReady(Duration.ofSeconds(120));
    done(
        "relay pid "
            + relay.pid()
            + " streaming from slot "
            + SLOT
            + ", billing pids "
            + billing.get(0).pid()
            + " and "
            + billing.get(1).pid()
            + " in group "
            + GROUP
            + ", order-service pid "
            + orderServiceProcess.pid()
            + " on "
            + orderApi
            + "; logs in "
            + home.resolve("logs"),
        t0);
  }

  /** Waits until every child answers 200 on its management port's {@code /health/ready}. */
  private void awaitReady(Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      List<String> notReady = new ArrayList<>();
      for (ServiceProcess p : processes()) {
        if (!p.isAlive()) {
          throw new IllegalStateException(
              p.name() + " exited while starting: " + lastLines(p.outputFile()));
        }
        if (!p.ready()) {
          notReady.add(p.name());
        }
      }
      if (notReady.isEmpty() && slotActive()) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "The services were not ready within "
                + timeout
                + " (not ready: "
                + (notReady.isEmpty() ? "the relay's slot is not streaming" : notReady)
                + "); see "
                + home.resolve("logs"));
      }
      if (interrupted.await(200, TimeUnit.MILLISECONDS)) {
        throw new InterruptedException("Ctrl-C");
      }
    }
  }

  private boolean slotActive() {
    try {
      return new SlotLagReader(db, SLOT).read().stream().anyMatch(SlotLag::active);
    } catch (Exception notYet) {
      return false;
    }
  }

  private List<ServiceProcess> processes() {
    List<ServiceProcess> all = new ArrayList<>();
    all.add(relay);
    all.addAll(billing);
    all.add(orderServiceProcess);
    return all;
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static String lastLines(Path file) {
    try {
      List<String> lines = Files.readAllLines(file);
      return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
    } catch (IOException e) {
      return "(no output: " + e.getMessage() + ")";
    }
  }

  /** An order whose transaction rolls back: it must leave no trace anywhere downstream. */
  private PlacedOrder placePhantom() {
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

  // ---------------------------------------------------------------- drive

  private void drive() throws Exception {
    List<FaultInjector.Fault> plan = options.plan();
    out.printf(
        "%nDriving for %s%s: interactive orders over HTTP%s (some retried with the same"
            + " Idempotency-Key), bulk batches, cancellations, records redelivered and re-published"
            + " under new ids%s%n",
        human(options.duration()),
        options.maxOrders() > 0 ? " or " + options.maxOrders() + " orders" : "",
        options.rate() > 0 ? " at " + options.rate() + "/s" : "",
        plan.isEmpty()
            ? ""
            : "; faults: "
                + String.join(", ", plan.stream().map(DemoRun::describe).distinct().toList()));
    out.flush();
    AtomicBoolean driving = new AtomicBoolean(true);
    SplittableRandom bulkRandom = random.split();
    SplittableRandom faultRandom = random.split();
    Thread bulk = new Thread(() -> bulkLoop(driving, bulkRandom), "ordinal-demo-bulk");
    bulk.setDaemon(true);
    bulk.start();
    Thread faults = null;
    if (!plan.isEmpty()) {
      faultsRunning = true;
      faults = new Thread(() -> faultLoop(plan, faultRandom), "ordinal-demo-faults");
      faults.setDaemon(true);
      faults.start();
    }
    if (options.chaos()) {
      cancelBeforePlace();
    }
    long end = System.nanoTime() + options.duration().toNanos();
    if (options.rate() > 0) {
      driveAtRate(end);
    } else {
      driveOneByOne(end);
    }
    driving.set(false);
    bulk.join(Duration.ofSeconds(30).toMillis());
    if (faults != null) {
      faults.join(Duration.ofSeconds(60).toMillis());
    }
    progress(true);
    if (interrupted.getCount() == 0) {
      throw new InterruptedException("Ctrl-C");
    }
  }

  /**
   * Delivers the cancellation of {@link #CANCEL_BEFORE_PLACE} new orders before their placement,
   * straight onto the orders topic: billing must leave each invoice CANCELLED without a number and
   * never charge it.
   */
  private void cancelBeforePlace() throws Exception {
    String topic = TOPIC_PREFIX + "." + OrderEvents.AGGREGATE_TYPE;
    for (int i = 0; i < CANCEL_BEFORE_PLACE; i++) {
      UUID order = UUID.randomUUID();
      cancelledBeforePlaced.add(order);
      observer.cancelBeforePlace(
          topic,
          order,
          "{\"orderId\":\""
              + order
              + "\",\"customerId\":\"out-of-order-"
              + i
              + "\",\"currency\":\"EUR\",\"total\":\"10.00\",\"invoiceSeries\":\""
              + SERIES.get(0)
              + "\"}");
    }
  }

  /** Drives until the duration has passed and every planned fault is done. */
  private boolean keepDriving(long end) {
    return (System.nanoTime() < end || faultsRunning)
        && !limitReached()
        && interrupted.getCount() > 0;
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
  private void driveOneByOne(long end) throws InterruptedException {
    long nextProgress = 0;
    long nextCancel = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
    List<UUID> cancellable = new ArrayList<>();
    int n = 0;
    while (keepDriving(end)) {
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
        progress(false);
        nextProgress = now + TimeUnit.SECONDS.toNanos(tty ? 1 : 5);
      }
      interrupted.await(40 + random.nextInt(40), TimeUnit.MILLISECONDS);
    }
  }

  /**
   * Interactive orders at {@link Options#rate()} per second, open loop: each on a request of its
   * own, up to {@link #MAX_IN_FLIGHT} at once; a tick that finds them all busy (a server is away
   * and requests wait) is skipped and counted, so the load does not pile up behind an outage.
   */
  private void driveAtRate(long end) throws InterruptedException {
    java.util.concurrent.ThreadPoolExecutor requests =
        new java.util.concurrent.ThreadPoolExecutor(
            MAX_IN_FLIGHT,
            MAX_IN_FLIGHT,
            0,
            TimeUnit.MILLISECONDS,
            new java.util.concurrent.SynchronousQueue<>(),
            r -> {
              Thread t = new Thread(r, "ordinal-demo-request");
              t.setDaemon(true);
              return t;
            },
            (r, pool) -> saturated.incrementAndGet());
    List<UUID> cancellable = java.util.Collections.synchronizedList(new ArrayList<>());
    long period = TimeUnit.SECONDS.toNanos(1) / options.rate();
    long next = System.nanoTime();
    long nextProgress = 0;
    long nextCancel = next + TimeUnit.SECONDS.toNanos(1);
    int n = 0;
    try {
      while (keepDriving(end)) {
        long now = System.nanoTime();
        if (now < next) {
          interrupted.await(next - now, TimeUnit.NANOSECONDS);
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
          nextCancel = now + TimeUnit.MILLISECONDS.toNanos(600 + random.nextInt(800));
        }
        if (now >= nextProgress) {
          progress(false);
          nextProgress = now + TimeUnit.SECONDS.toNanos(tty ? 1 : 5);
        }
      }
    } finally {
      requests.shutdown();
      requests.awaitTermination(60, TimeUnit.SECONDS);
    }
  }

  private boolean limitReached() {
    return options.maxOrders() > 0 && placed.size() >= options.maxOrders();
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
        // the client did not see the answer and retries: same key, same order
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
                  .equals(p.orderId().toString())) {
            idempotentMismatches.incrementAndGet();
          }
        } catch (IOException e) {
          retriesFailed.incrementAndGet();
        }
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

  private void bulkLoop(AtomicBoolean driving, SplittableRandom random) {
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
      interrupted.await(2, TimeUnit.SECONDS);
      while (driving.get() && !limitReached()) {
        producer.run(20, 40, p -> {});
        interrupted.await(3 + random.nextInt(3), TimeUnit.SECONDS);
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

  /** Chaos rounds in a drive of {@code duration}: one per 15 s, at least 2. */
  static int chaosRounds(Duration duration) {
    return (int) Math.max(2, duration.toSeconds() / 15);
  }

  /** The shortest drive --chaos fits in: each round needs a slot of 5 s. */
  static final Duration MIN_CHAOS_DURATION = Duration.ofSeconds(10);

  /**
   * Injects the planned faults one after the other, each at a random moment of its equal slot of
   * the drive (or at once when the previous one ran past its slot), and records what the services
   * did around each.
   */
  private void faultLoop(List<FaultInjector.Fault> plan, SplittableRandom random) {
    FaultInjector injector =
        new FaultInjector(
            stack.control().orElseThrow(),
            List.of(
                new FaultInjector.Service(orderServiceProcess, true, false),
                new FaultInjector.Service(relay, true, true),
                new FaultInjector.Service(billing.get(0), true, true),
                new FaultInjector.Service(billing.get(1), true, true)),
            relay,
            billing,
            this::event,
            this::bankDuplicates);
    long start = System.nanoTime();
    long slot = options.duration().toMillis() / plan.size();
    try {
      for (int i = 0; i < plan.size() && interrupted.getCount() > 0; i++) {
        // a moment in [slot start + 1 s, slot middle]
        long at = i * slot + 1_000 + random.nextLong(Math.max(1, slot / 2 - 1_000));
        long wait = at - (System.nanoTime() - start) / 1_000_000;
        if (wait > 0 && interrupted.await(wait, TimeUnit.MILLISECONDS)) {
          return;
        }
        FaultInjector.Fault fault = plan.get(i);
        FaultInjector.Outcome o = injector.inject(fault, random);
        faultOutcomes.add(o);
        if (fault.kind() == FaultInjector.Kind.KILL_RELAY) {
          relayKills.incrementAndGet();
        } else if (fault.kind() == FaultInjector.Kind.KILL_BILLING) {
          billingKills.incrementAndGet();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      event("fault: could not inject or undo a fault: " + e.getMessage());
    } finally {
      faultsRunning = false;
    }
  }

  static String describe(FaultInjector.Fault f) {
    return f.outage().isZero()
        ? f.kind().description
        : f.kind().description + " " + human(f.outage());
  }

  /** Billing's count of skipped duplicates dies with its process: keep it before a kill. */
  private void bankDuplicates(ServiceProcess p) {
    double now = duplicatesOf(p);
    if (now > 0) {
      bankedDuplicates.merge(p.name(), now, Double::sum);
    }
  }

  private static final java.util.regex.Pattern DUPLICATES =
      java.util.regex.Pattern.compile(
          "ordinal_inbox_messages_total\\{consumer=\"billing\",outcome=\"duplicate\"} (\\S+)");

  /** The redeliveries {@code p}'s inbox skipped since it started, from its /metrics. */
  private static double duplicatesOf(ServiceProcess p) {
    String metrics = p.metrics();
    if (metrics == null) {
      return 0;
    }
    java.util.regex.Matcher m = DUPLICATES.matcher(metrics);
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }

  /** Redeliveries billing's inboxes skipped: the live instances' counts and the killed ones'. */
  private long duplicatesSkipped() {
    double sum = bankedDuplicates.values().stream().mapToDouble(Double::doubleValue).sum();
    for (ServiceProcess b : billing) {
      sum += duplicatesOf(b);
    }
    return (long) sum;
  }

  // ---------------------------------------------------------------- progress

  private synchronized void event(String line) {
    if (tty) {
      out.print("\r\033[K");
    }
    out.println("  " + line);
    out.flush();
  }

  private synchronized void progress(boolean last) {
    String line;
    try {
      line = progressLine();
    } catch (RuntimeException e) {
      // a server is away (a fault of the run): the line waits for it
      line = "(progress unknown while a server is away: " + e.getClass().getSimpleName() + ")";
    }
    if (tty) {
      out.print("\r\033[K  " + line);
      if (last) {
        out.println();
      }
    } else {
      out.println("  " + line);
    }
    out.flush();
  }

  private String progressLine() {
    List<UUID> ids = List.copyOf(placed.keySet());
    int issued = evidence.issued(ids);
    long consumerLag = consumerLag();
    return String.format(
        "placed %d, relayed %d, invoiced %d, duplicates skipped %d, consumer lag %s, slot lag %s",
        ids.size(),
        observer.relayedIds(),
        issued,
        duplicatesSkipped(),
        consumerLag < 0 ? "?" : consumerLag,
        slotLag());
  }

  private long consumerLag() {
    try {
      return lagReader.read(LagQuery.group(GROUP)).group(GROUP).map(GroupLag::totalLag).orElse(-1L);
    } catch (RuntimeException notYet) {
      return -1;
    }
  }

  private String slotLag() {
    try {
      return new SlotLagReader(db, SLOT)
          .read().stream()
              .findFirst()
              .map(s -> s.lagBytes() == null ? "?" : s.lagBytes() + " B")
              .orElse("?");
    } catch (Exception e) {
      return "?";
    }
  }

  // ---------------------------------------------------------------- settle

  private String lastSettle = "";

  private boolean settled() {
    Map<UUID, String> messageIds = new HashMap<>();
    placed.forEach((id, p) -> messageIds.put(id, p.messageId()));
    EvidenceReader.Backlog backlog =
        evidence.backlog(messageIds, cancelled, cancelledBeforePlaced, consumerLag());
    lastSettle = backlog.toString();
    return backlog.settled();
  }

  private String settleDetail() {
    return lastSettle;
  }

  // ---------------------------------------------------------------- report

  private boolean report(PlacedOrder phantom, boolean settled, double driveSeconds) {
    Evidence e =
        evidence.read(
            new EvidenceReader.Driven(
                placed.keySet(),
                cancelled,
                cancelledBeforePlaced,
                phantom,
                idempotentMismatches.get()),
            duplicatesSkipped());
    Map<UUID, EvidenceReader.Committed> committed = new HashMap<>();
    placed.forEach(
        (id, p) ->
            committed.put(
                id,
                new EvidenceReader.Committed(
                    p.messageId(), p.committedAt(), BULK_SERIES.equals(p.series()))));
    DemoSummary.Lanes[] lanes = evidence.latencies(committed);
    DemoSummary summary =
        DemoSummary.of(
            e,
            InvariantChecks.check(e),
            new DemoSummary.Run(
                (int) committed.values().stream().filter(EvidenceReader.Committed::bulk).count(),
                placeFailures.get(),
                idempotentRetries.get(),
                retriesFailed.get(),
                saturated.get(),
                MAX_IN_FLIGHT,
                options.rate(),
                Math.round(driveSeconds),
                options.chaos(),
                List.copyOf(faultOutcomes)),
            lanes[0],
            lanes[1],
            settled ? null : "within " + human(options.settleTimeout()) + ":" + lastSettle,
            home.resolve("logs").toString());
    out.println();
    out.print(summary.text());
    if (options.json()) {
      out.println(summary.json());
    }
    out.flush();
    return summary.exitStatus() == 0;
  }

  static String human(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }

  /** Polls {@code condition} until it holds or {@code timeout} passes, showing progress. */
  private boolean waitFor(
      Duration timeout, BooleanSupplier condition, java.util.function.Supplier<String> line)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long nextLine = 0;
    while (true) {
      boolean holds = condition.getAsBoolean();
      long now = System.nanoTime();
      if (tty) {
        out.print("\r\033[K  " + line.get());
        out.flush();
      } else if (holds || now >= nextLine || now >= deadline) {
        out.println("  " + line.get());
        out.flush();
        nextLine = now + TimeUnit.SECONDS.toNanos(5);
      }
      if (holds || now >= deadline) {
        if (tty) {
          out.println();
        }
        return holds;
      }
      if (interrupted.await(300, TimeUnit.MILLISECONDS)) {
        throw new InterruptedException("Ctrl-C");
      }
    }
  }

  // ---------------------------------------------------------------- plumbing

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

  private synchronized <T extends AutoCloseable> T keep(T resource) {
    resources.push(resource);
    return resource;
  }

  private void closeAll() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    // the children first and all at once: each gets SIGTERM, then SIGKILL if it lingers
    List<Thread> stopping = new ArrayList<>();
    for (AutoCloseable r : List.copyOf(resources)) {
      if (r instanceof ServiceProcess p) {
        Thread t = new Thread(() -> stopQuietly(p), "ordinal-demo-stop-" + p.name());
        t.start();
        stopping.add(t);
      }
    }
    for (Thread t : stopping) {
      try {
        t.join(Duration.ofSeconds(30).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    synchronized (this) {
      while (!resources.isEmpty()) {
        try {
          resources.pop().close();
        } catch (Exception e) {
          out.println("warning: stopping a part of the demo failed: " + e.getMessage());
        }
      }
    }
    out.flush();
  }

  private static void stopQuietly(ServiceProcess p) {
    try {
      p.stop(Duration.ofSeconds(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
