package dev.ordinal.lab.demo;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.billing.BillingService;
import dev.ordinal.billing.BillingSettings;
import dev.ordinal.contracts.AggregateType;
import dev.ordinal.lab.devstack.StackConfig;
import dev.ordinal.lab.devstack.StackMode;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.PaymentGatewaySimulator;
import dev.ordinal.messaging.Preflight;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.kafka.Topics;
import dev.ordinal.messaging.slot.SlotReader;
import dev.ordinal.messaging.slot.SlotReading;
import dev.ordinal.ops.lag.GroupLag;
import dev.ordinal.ops.lag.LagQuery;
import dev.ordinal.ops.lag.LagReader;
import dev.ordinal.ops.lag.LagReaderConfig;
import dev.ordinal.order.OrderService;
import dev.ordinal.order.OrderServiceSettings;
import dev.ordinal.relay.RelayConfig;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The processes of the demo and their readiness: the servers and the two simulators in this JVM (a
 * {@link LocalSystem} without services, as {@code ./ordinal up} starts them), and each service in a
 * JVM of its own ({@link ServiceProcess}): the relay of both outboxes, two billing instances in one
 * consumer group, order-service. A child is ready when its {@code /health/ready} answers 200.
 * Closing stops the children first, all at once (SIGTERM, then SIGKILL after 5 s), then the rest.
 */
final class DemoCluster implements AutoCloseable {
  static final String GROUP = "ordinal-demo-billing";
  static final String TOPIC_PREFIX = BillingSettings.DEFAULT_TOPIC_PREFIX;
  static final String ORDER_SCHEMA = OrderServiceSettings.DEFAULT_SCHEMA;
  static final String BILLING_SCHEMA = BillingSettings.DEFAULT_SCHEMA;

  /** The orders outbox's slot: the relay's default for schema {@code orders}. */
  static final String SLOT = RelayConfig.defaultName(ORDER_SCHEMA);

  /** Share of integrator submissions --chaos has stored only after billing gave up on them. */
  static final double LATE_ACCEPT_RATE = 0.05;

  /** When a late accept is stored: after billing's 5 s client timeout. */
  static final Duration LATE_ACCEPT_AFTER = Duration.ofSeconds(6);

  /** How long the children have to be ready after they start. */
  static final Duration START_TIMEOUT = Duration.ofSeconds(120);

  private static final Pattern DUPLICATES =
      Pattern.compile(
          "ordinal_inbox_messages_total\\{consumer=\"billing\",outcome=\"duplicate\"} (\\S+)");

  private final StackConfig stackConfig;
  private final boolean chaos;
  private final SplittableRandom random;
  private final Console console;
  private final Deque<AutoCloseable> resources = new ArrayDeque<>();
  private final Map<String, Double> bankedDuplicates = new ConcurrentHashMap<>();
  private final Path home;
  private LocalSystem servers;
  private DSLContext orderDb;
  private DSLContext billingDb;
  private LagReader lagReader;
  private ServiceProcess relay;
  private final List<ServiceProcess> billing = new ArrayList<>();
  private ServiceProcess orderService;
  private URI orderApi;

  /**
   * @param chaos the integrator also accepts some submissions late
   * @param random the source of the integrator's draws
   */
  DemoCluster(StackConfig stackConfig, boolean chaos, SplittableRandom random, Console console) {
    this.stackConfig = stackConfig;
    this.chaos = chaos;
    this.random = random;
    this.console = console;
    this.home = stackConfig.dataDir().toAbsolutePath().getParent();
  }

  /** The topic of {@code aggregate}, e.g. {@code ordinal.order}. */
  static String topic(String aggregate) {
    return TOPIC_PREFIX + "." + aggregate;
  }

  /** Starts the servers, the simulators, the schemas and topics, then the children, ready. */
  void start() throws Exception {
    servers = keep(serversAndSimulators());
    servers.start();
    prepare();
    startServices();
  }

  private LocalSystem serversAndSimulators() {
    return LocalSystem.embedded(stackConfig)
        .integrator(
            new IntegratorSimulator(
                0,
                chaos
                    ? LocalSystem.demoIntegratorFaults()
                        .withTimeouts(0, LATE_ACCEPT_AFTER)
                        .withLateAcceptRate(LATE_ACCEPT_RATE)
                    : LocalSystem.demoIntegratorFaults(),
                random.split(),
                Clock.systemUTC()))
        .gateway(new PaymentGatewaySimulator(0, LocalSystem.demoGatewayFaults()))
        .withoutServices()
        .listener(
            new LocalSystem.Listener() {
              long t0;

              @Override
              public void starting(LocalSystem.Part part, String name) {
                t0 = part == LocalSystem.Part.GATEWAY ? t0 : System.nanoTime();
                if (part == LocalSystem.Part.STACK) {
                  console.step("Starting the embedded stack (PostgreSQL 17, Kafka KRaft broker)");
                } else if (part == LocalSystem.Part.INTEGRATOR) {
                  console.step("Starting the integrator and payment gateway simulators");
                }
              }

              @Override
              public void started(LocalSystem.Part part, String name, Duration took) {
                if (part == LocalSystem.Part.STACK) {
                  console.done(
                      "PostgreSQL " + servers.db().redactedUrl() + ", Kafka " + kafka(), t0);
                } else if (part == LocalSystem.Part.GATEWAY) {
                  console.done(simulators(), t0);
                }
              }
            })
        .build();
  }

  private String simulators() {
    return "integrator "
        + servers.integrator().baseUri()
        + ": 20-200 ms, 5% transient failures, 5% accepted-then-dropped"
        + (chaos ? ", 5% accepted late (stored 6 s after arriving, billing gives up at 5 s)" : "");
  }

  /** The servers' checks, the schemas of order-service and billing, the order topics. */
  private void prepare() {
    console.step("Migrating order-service and billing schemas, creating the topics");
    long t0 = System.nanoTime();
    DatabaseSettings db = servers.db();
    Preflight.checkPostgres(db, true);
    Preflight.checkKafka(kafka(), Preflight.DEFAULT_TIMEOUT);
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
    for (String aggregate :
        List.of(AggregateType.ORDER.wireName(), AggregateType.ORDER_BULK.wireName())) {
      Topics.ensure(kafka(), topic(aggregate), Topics.DEFAULT_PARTITIONS);
    }
    lagReader = keep(new LagReader(LagReaderConfig.of(kafka()), Clock.systemUTC()));
    console.done("Flyway", t0);
  }

  private void startServices() throws Exception {
    console.step("Starting the relay, 2 billing instances and order-service, each in its own JVM");
    long t0 = System.nanoTime();
    relay =
        child(
            "relay",
            List.of(
                "relay",
                "--schema",
                ORDER_SCHEMA + "," + BILLING_SCHEMA,
                "--instance-id",
                "relay",
                "--heartbeat",
                "PT1S"));
    for (int i = 1; i <= 2; i++) {
      billing.add(child("billing-" + i, billingArgs("billing-" + i)));
    }
    int apiPort = freePort();
    orderService =
        child(
            "order-service",
            // local and unauthenticated: the demo's own load is the only caller
            List.of(
                "order-service",
                "--host",
                "127.0.0.1",
                "--port",
                "" + apiPort,
                "--pool-size",
                "4",
                "--auth",
                "none"));
    for (ServiceProcess p : processes()) {
      p.start();
    }
    orderApi = URI.create("http://127.0.0.1:" + apiPort);
    awaitReady(START_TIMEOUT);
    console.done(
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
            + orderService.pid()
            + " on "
            + orderApi
            + "; logs in "
            + logs(),
        t0);
  }

  private List<String> billingArgs(String instance) {
    return List.of(
        "billing",
        "--instance-id",
        instance,
        "--group",
        GROUP,
        "--concurrency",
        "2",
        "--issuer-workers",
        "3",
        "--issuer-lease",
        "PT6S",
        "--payment-lease",
        "PT6S", // longer than the gateway's 5 s timeout: a charge is sent only while it covers it
        "--session-timeout",
        "PT6S",
        "--integrator-url",
        servers.integrator().baseUri().toString(),
        "--gateway-url",
        servers.gateway().baseUri().toString());
  }

  /** A child JVM running {@code args} against the cluster's servers, stopped with the others. */
  ServiceProcess child(String name, List<String> args) throws IOException {
    StackConfig external =
        new StackConfig(
            StackMode.EXTERNAL,
            stackConfig.dataDir(),
            false,
            false,
            servers.db().jdbcUrl(),
            servers.db().user(),
            servers.db().password(),
            kafka());
    return keep(new ServiceProcess(name, external, home, freePort(), args));
  }

  /** Waits until every child answers 200 on {@code /health/ready} and the relay's slot streams. */
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
                + logs());
      }
      if (console.await(Duration.ofMillis(200))) {
        throw new InterruptedException("Ctrl-C");
      }
    }
  }

  private boolean slotActive() {
    try {
      return new SlotReader(servers.db(), SLOT).read().stream().anyMatch(SlotReading::active);
    } catch (Exception notYet) {
      return false;
    }
  }

  /** Every child, in the order they start. */
  List<ServiceProcess> processes() {
    List<ServiceProcess> all = new ArrayList<>();
    all.add(relay);
    all.addAll(billing);
    all.add(orderService);
    return all;
  }

  /** Throws, quoting its last output, when a child is not running. */
  void checkAlive() {
    for (ServiceProcess p : processes()) {
      if (!p.isAlive()) {
        throw new IllegalStateException(p.name() + " is not running: " + lastLines(p.outputFile()));
      }
    }
  }

  /**
   * The fault injector on these servers and children; a billing instance's count of skipped
   * duplicates is read just before it is killed.
   */
  FaultInjector faultInjector(Consumer<String> events) {
    return new FaultInjector(
        servers.stack().control().orElseThrow(),
        List.of(
            new FaultInjector.Service(orderService, true, false),
            new FaultInjector.Service(relay, true, true),
            new FaultInjector.Service(billing.get(0), true, true),
            new FaultInjector.Service(billing.get(1), true, true)),
        relay,
        billing,
        events,
        this::bankDuplicates);
  }

  /** Billing's count of skipped duplicates dies with its process: keep it before a kill. */
  private void bankDuplicates(ServiceProcess p) {
    double now = duplicatesOf(p);
    if (now > 0) {
      bankedDuplicates.merge(p.name(), now, Double::sum);
    }
  }

  /** The redeliveries {@code p}'s inbox skipped since it started, from its /metrics. */
  private static double duplicatesOf(ServiceProcess p) {
    String metrics = p.metrics();
    if (metrics == null) {
      return 0;
    }
    Matcher m = DUPLICATES.matcher(metrics);
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }

  /** Redeliveries billing's inboxes skipped: the live instances' counts and the killed ones'. */
  long duplicatesSkipped() {
    double sum = bankedDuplicates.values().stream().mapToDouble(Double::doubleValue).sum();
    for (ServiceProcess b : billing) {
      sum += duplicatesOf(b);
    }
    return (long) sum;
  }

  /** The billing group's lag, -1 while unknown. */
  long consumerLag() {
    try {
      return lagReader.read(LagQuery.group(GROUP)).group(GROUP).map(GroupLag::totalLag).orElse(-1L);
    } catch (RuntimeException notYet) {
      return -1;
    }
  }

  /** The orders slot's lag in bytes, as the live line shows it. */
  String slotLag() {
    try {
      return new SlotReader(servers.db(), SLOT)
          .read().stream()
              .findFirst()
              .map(s -> s.restartLagBytes() == null ? "?" : s.restartLagBytes() + " B")
              .orElse("?");
    } catch (Exception e) {
      return "?";
    }
  }

  String kafka() {
    return servers.kafkaBootstrap();
  }

  DSLContext orderDb() {
    return orderDb;
  }

  DSLContext billingDb() {
    return billingDb;
  }

  IntegratorSimulator integrator() {
    return servers.integrator();
  }

  PaymentGatewaySimulator gateway() {
    return servers.gateway();
  }

  URI orderApi() {
    return orderApi;
  }

  /** Where the children's output and logs go. */
  Path logs() {
    return home.resolve("logs");
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  static String lastLines(Path file) {
    try {
      List<String> lines = Files.readAllLines(file);
      return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
    } catch (IOException e) {
      return "(no output: " + e.getMessage() + ")";
    }
  }

  private synchronized <T extends AutoCloseable> T keep(T resource) {
    resources.push(resource);
    return resource;
  }

  /** Stops the children, all at once: each gets SIGTERM, then SIGKILL if it lingers 5 s. */
  void stopChildren() {
    List<Thread> stopping = new ArrayList<>();
    for (AutoCloseable r : snapshot()) {
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
  }

  private synchronized List<AutoCloseable> snapshot() {
    return List.copyOf(resources);
  }

  private static void stopQuietly(ServiceProcess p) {
    try {
      p.stop(Duration.ofSeconds(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The children first, then the pools, the simulators and the stack. */
  @Override
  public void close() {
    stopChildren();
    synchronized (this) {
      while (!resources.isEmpty()) {
        try {
          resources.pop().close();
        } catch (Exception e) {
          console.out().println("warning: stopping a part of the demo failed: " + e.getMessage());
        }
      }
    }
    console.out().flush();
  }
}
