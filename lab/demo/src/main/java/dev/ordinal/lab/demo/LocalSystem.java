package dev.ordinal.lab.demo;

import dev.ordinal.billing.BillingApp;
import dev.ordinal.billing.BillingSettings;
import dev.ordinal.lab.devstack.Stack;
import dev.ordinal.lab.devstack.StackConfig;
import dev.ordinal.lab.sim.IntegratorFaults;
import dev.ordinal.lab.sim.IntegratorSimulator;
import dev.ordinal.lab.sim.PaymentGatewayFaults;
import dev.ordinal.lab.sim.PaymentGatewaySimulator;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.order.ApiAuth;
import dev.ordinal.order.OrderServiceApp;
import dev.ordinal.order.OrderServiceSettings;
import dev.ordinal.relay.RelayApp;
import dev.ordinal.relay.RelaySettings;
import dev.ordinal.runtime.ManagementSettings;
import dev.ordinal.runtime.ServiceApp;
import dev.ordinal.runtime.ServiceStoppedException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.slf4j.LoggerFactory;

/**
 * The whole system in one JVM: the servers (the embedded stack started here, or servers given), the
 * integrator and payment gateway simulators, and order-service, the relay of both outboxes and
 * billing, each started through its runtime class ({@link OrderServiceApp}, {@link RelayApp},
 * {@link BillingApp}) as deployed. {@code ./ordinal up}, the end-to-end bench and the system tests
 * start it; the demo starts its servers and simulators with it and runs the services as processes
 * of their own ({@link DemoCluster}).
 *
 * <p>{@link #start()} starts the parts in order (stack, integrator, gateway, order-service,
 * billing, relay); {@link #requestStop()}, from any thread, makes a start in progress give up with
 * {@link ServiceStoppedException}; {@link #close()} stops what was started, last first.
 */
public final class LocalSystem implements AutoCloseable {

  /** The parts, in the order they start. */
  public enum Part {
    STACK,
    INTEGRATOR,
    GATEWAY,
    ORDER_SERVICE,
    BILLING,
    RELAY
  }

  /** Told around each part's start, e.g. to show progress. */
  public interface Listener {
    /** {@code name}: the service's name for the services, the part's otherwise. */
    default void starting(Part part, String name) {}

    default void started(Part part, String name, Duration took) {}
  }

  /** The demo's integrator: 20-200 ms, 5 % transient failures, 5 % accepted then dropped. */
  public static IntegratorFaults demoIntegratorFaults() {
    return IntegratorFaults.defaults()
        .withLatency(Duration.ofMillis(20), Duration.ofMillis(200))
        .withTransientFailureRate(0.05)
        .withDroppedAfterAcceptRate(0.05);
  }

  /** The demo's payment gateway: 5-50 ms. */
  public static PaymentGatewayFaults demoGatewayFaults() {
    return PaymentGatewayFaults.defaults().withLatency(Duration.ofMillis(5), Duration.ofMillis(50));
  }

  /** On the embedded stack, started from {@code config}. */
  public static Builder embedded(StackConfig config) {
    return new Builder(Objects.requireNonNull(config, "config"), null, null);
  }

  /** On servers that run already. */
  public static Builder on(DatabaseSettings db, String kafkaBootstrap) {
    return new Builder(
        null, Objects.requireNonNull(db, "db"), Objects.requireNonNull(kafkaBootstrap, "kafka"));
  }

  /**
   * On servers that run already, as the system tests start it: {@linkplain Builder#quickSimulators
   * quick simulators}, no management port, order-service on {@code orderSchema} on a free port with
   * a pool of two connections.
   */
  public static Builder forTests(DatabaseSettings db, String kafkaBootstrap, String orderSchema) {
    return on(db, kafkaBootstrap)
        .quickSimulators()
        .managementOff()
        .orderService(o -> o.schema(orderSchema).port(0).poolSize(2));
  }

  /** What to start; nothing runs before {@link #build()}'s {@link LocalSystem#start()}. */
  public static final class Builder {
    private final StackConfig stackConfig;
    private final DatabaseSettings db;
    private final String kafkaBootstrap;
    private IntegratorSimulator integrator;
    private PaymentGatewaySimulator gateway;
    private UnaryOperator<OrderServiceSettings.Builder> orderService = UnaryOperator.identity();
    private UnaryOperator<BillingSettings.Builder> billing = UnaryOperator.identity();
    private UnaryOperator<RelaySettings.Builder> relay = UnaryOperator.identity();
    private boolean services = true;
    private boolean withRelay = true;
    private boolean managementOff;
    private Listener listener = new Listener() {};

    private Builder(StackConfig stackConfig, DatabaseSettings db, String kafkaBootstrap) {
      this.stackConfig = stackConfig;
      this.db = db;
      this.kafkaBootstrap = kafkaBootstrap;
    }

    /** The integrator simulator, not started yet: the system starts and closes it. */
    public Builder integrator(IntegratorSimulator notStarted) {
      this.integrator = notStarted;
      return this;
    }

    /** The payment gateway simulator, not started yet: the system starts and closes it. */
    public Builder gateway(PaymentGatewaySimulator notStarted) {
      this.gateway = notStarted;
      return this;
    }

    /**
     * Both simulators on free ports, answering in 1 to 5 ms and without faults: for tests that only
     * need them to answer.
     */
    public Builder quickSimulators() {
      Duration min = Duration.ofMillis(1);
      Duration max = Duration.ofMillis(5);
      return integrator(
              new IntegratorSimulator(0, IntegratorFaults.defaults().withLatency(min, max)))
          .gateway(
              new PaymentGatewaySimulator(
                  0, PaymentGatewayFaults.defaults().withLatency(min, max)));
    }

    /** Changes order-service's settings, from {@link OrderServiceSettings#builder}. */
    public Builder orderService(UnaryOperator<OrderServiceSettings.Builder> change) {
      this.orderService = change;
      return this;
    }

    /**
     * Changes billing's settings, from {@link BillingSettings#builder} with the simulators' URLs.
     */
    public Builder billing(UnaryOperator<BillingSettings.Builder> change) {
      this.billing = change;
      return this;
    }

    /**
     * Changes the relay's settings, from the relay of order-service's and billing's outboxes onto
     * billing's topic prefix.
     */
    public Builder relay(UnaryOperator<RelaySettings.Builder> change) {
      this.relay = change;
      return this;
    }

    /** No relay: the caller starts its own. */
    public Builder withoutRelay() {
      this.withRelay = false;
      return this;
    }

    /** Only the servers and the simulators: the services run elsewhere. */
    public Builder withoutServices() {
      this.services = false;
      return this;
    }

    /** No management port for any service. */
    public Builder managementOff() {
      this.managementOff = true;
      return this;
    }

    public Builder listener(Listener l) {
      this.listener = Objects.requireNonNull(l, "listener");
      return this;
    }

    /** The system, not started. */
    public LocalSystem build() {
      Objects.requireNonNull(integrator, "integrator");
      Objects.requireNonNull(gateway, "gateway");
      return new LocalSystem(this);
    }

    /** The system, started; what was started is closed again when a part fails to start. */
    public LocalSystem start() {
      LocalSystem system = build();
      try {
        return system.start();
      } catch (RuntimeException | Error e) {
        system.close();
        throw e;
      }
    }
  }

  private final Builder b;
  private final Deque<AutoCloseable> started = new ArrayDeque<>();
  private final List<ServiceApp> apps = new ArrayList<>();
  private volatile boolean stopRequested;
  private Stack stack;
  private DatabaseSettings db;
  private String kafkaBootstrap;
  private OrderServiceApp orders;
  private BillingApp billing;
  private RelayApp relay;

  private LocalSystem(Builder b) {
    this.b = b;
    this.db = b.db;
    this.kafkaBootstrap = b.kafkaBootstrap;
  }

  /**
   * Starts every part, in order, and returns when the last one runs.
   *
   * @throws ServiceStoppedException when {@link #requestStop()} came first
   */
  public LocalSystem start() {
    if (b.stackConfig != null) {
      part(
          Part.STACK,
          "the embedded stack",
          () -> {
            stack = keep(Stack.start(b.stackConfig));
            db = StackServers.db(stack);
            kafkaBootstrap = stack.kafkaBootstrap();
            return stack;
          });
    }
    part(Part.INTEGRATOR, "integrator", () -> keep(b.integrator).start());
    part(Part.GATEWAY, "gateway", () -> keep(b.gateway).start());
    if (!b.services) {
      return this;
    }
    // a system for tests, benchmarks and exploring: its API unauthenticated unless changed
    OrderServiceSettings.Builder ob =
        b.orderService.apply(OrderServiceSettings.builder(db).auth(ApiAuth.none()));
    if (b.managementOff) {
      ob.management(off());
    }
    OrderServiceSettings o = ob.build();
    orders = app(Part.ORDER_SERVICE, new OrderServiceApp(o));
    BillingSettings.Builder s =
        b.billing.apply(
            BillingSettings.builder(db, kafkaBootstrap)
                .integrator(b.integrator.baseUri())
                .gateway(b.gateway.baseUri()));
    if (b.managementOff) {
      s.management(off());
    }
    billing = app(Part.BILLING, new BillingApp(s.build()));
    if (b.withRelay) {
      RelaySettings.Builder r =
          b.relay.apply(
              RelaySettings.builder(db, kafkaBootstrap)
                  .schemas(List.of(o.schema(), billing.settings().schema()))
                  .topicPrefix(billing.settings().topicPrefix()));
      if (b.managementOff) {
        r.management(off());
      }
      relay = app(Part.RELAY, new RelayApp(r.build()));
    }
    return this;
  }

  private static ManagementSettings off() {
    return ManagementSettings.off();
  }

  private interface Starter<T> {
    T start();
  }

  private <T> T part(Part part, String name, Starter<T> starter) {
    if (stopRequested) {
      throw new ServiceStoppedException("stopped before " + name + " started");
    }
    b.listener.starting(part, name);
    long t0 = System.nanoTime();
    T t = starter.start();
    b.listener.started(part, name, Duration.ofNanos(System.nanoTime() - t0));
    return t;
  }

  private <A extends ServiceApp> A app(Part part, A app) {
    keep(app);
    synchronized (apps) {
      apps.add(app);
      if (stopRequested) {
        app.requestStop();
      }
    }
    return part(
        part,
        app.service(),
        () -> {
          app.start();
          return app;
        });
  }

  private synchronized <T extends AutoCloseable> T keep(T part) {
    started.push(part);
    return part;
  }

  /** Asks a start in progress to give up; safe from any thread, e.g. a shutdown hook. */
  public void requestStop() {
    synchronized (apps) {
      stopRequested = true;
      apps.forEach(ServiceApp::requestStop);
    }
  }

  /** The embedded stack. */
  public Stack stack() {
    if (stack == null) {
      throw new IllegalStateException("this system runs on servers it did not start");
    }
    return stack;
  }

  public DatabaseSettings db() {
    return db;
  }

  public String kafkaBootstrap() {
    return kafkaBootstrap;
  }

  public IntegratorSimulator integrator() {
    return b.integrator;
  }

  public PaymentGatewaySimulator gateway() {
    return b.gateway;
  }

  public OrderServiceApp orders() {
    return orders;
  }

  public BillingApp billing() {
    return billing;
  }

  /** The relay; null {@link Builder#withoutRelay() without} one. */
  public RelayApp relay() {
    return relay;
  }

  /** Stops what was started, last first; a part that fails to stop is logged and passed. */
  @Override
  public synchronized void close() {
    while (!started.isEmpty()) {
      try {
        started.pop().close();
      } catch (Exception e) {
        LoggerFactory.getLogger(LocalSystem.class).warn("Stopping a part failed: {}", e.toString());
      }
    }
  }
}
