package dev.ordinal.order;

import com.zaxxer.hikari.HikariDataSource;
import dev.ordinal.messaging.Servers;
import dev.ordinal.messaging.outbox.Outbox;
import dev.ordinal.messaging.outbox.OutboxRetention;
import dev.ordinal.messaging.outbox.OutboxRetentionMode;
import dev.ordinal.order.internal.Authenticator;
import dev.ordinal.order.internal.IdempotencyKeyRetention;
import dev.ordinal.runtime.Loop;
import dev.ordinal.runtime.ServiceAppBase;
import java.time.Clock;
import java.time.Duration;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * order-service, the only place it is put together: {@link #start()} waits for PostgreSQL, migrates
 * the schema, opens the HTTP API, and runs two supervised loops — {@code outbox-retention} (the
 * rows the retention mode says are no longer needed; none in {@code delete-on-write}, where the
 * writing transaction deletes them) and {@code idempotency-key-retention} — with health and metrics
 * on the management port. The API authenticates its callers as {@link OrderServiceSettings#auth()}
 * says (a JWKS file is read first, before PostgreSQL is waited for; one it cannot use refuses the
 * start) and listens on {@link OrderServiceSettings#host()}.
 */
public final class OrderServiceApp extends ServiceAppBase {
  public static final String SERVICE = "order-service";
  public static final String OUTBOX_RETENTION_LOOP = "outbox-retention";
  public static final String KEY_RETENTION_LOOP = "idempotency-key-retention";

  /** How often expired idempotency keys are deleted. */
  static final Duration KEY_RETENTION_INTERVAL = Duration.ofSeconds(10);

  /**
   * How long a request waits for a database connection before it gets a 503 with {@code
   * Retry-After}.
   */
  static final Duration CONNECTION_TIMEOUT = Duration.ofSeconds(5);

  private final OrderServiceSettings settings;
  private OrderService orders;
  private OrderHttpServer api;

  /** Opens the management port; starts nothing else. */
  public OrderServiceApp(OrderServiceSettings settings) {
    this(settings, Clock.systemUTC());
  }

  public OrderServiceApp(OrderServiceSettings settings, Clock clock) {
    super(SERVICE, settings.management(), clock);
    this.settings = settings;
  }

  /**
   * Starts with {@link #OrderServiceApp(OrderServiceSettings)}; closes what it opened on failure.
   */
  public static OrderServiceApp start(OrderServiceSettings settings) {
    return startOrClose(new OrderServiceApp(settings));
  }

  /**
   * Waits for PostgreSQL (a line every few seconds), migrates, opens the API, starts the loops.
   *
   * @throws dev.ordinal.messaging.ConfigurationException when the configuration is wrong
   * @throws dev.ordinal.runtime.ServiceStoppedException when {@link #requestStop()} came first
   */
  @Override
  public synchronized OrderServiceApp start() {
    Clock clock = runtime.clock();
    // a JWKS file it cannot use refuses the start before any server is waited for
    Authenticator authenticator = Authenticator.of(settings.auth(), clock);
    runtime.awaitServer(Servers.postgres(settings.db(), false));
    HikariDataSource pool =
        keepMigrated(
            settings
                .db()
                .withSchema(settings.schema())
                .servicePool("orders", settings.poolSize(), CONNECTION_TIMEOUT, runtime.registry()),
            settings.schema(),
            Servers::isUnavailable,
            p -> OrderService.migrate(p, settings.schema()));
    var dsl = DSL.using(pool, SQLDialect.POSTGRES);
    orders = new OrderService(dsl, new Outbox(clock, settings.outboxRetention().mode()), clock);
    if (settings.outboxRetention().mode() != OutboxRetentionMode.DELETE_ON_WRITE) {
      runtime.keep(
          new OutboxRetention(settings.outboxRetention(), dsl, runtime.registry(), clock)
              .start(runtime.supervisor(), OUTBOX_RETENTION_LOOP));
    }
    IdempotencyKeyRetention keys =
        new IdempotencyKeyRetention(
            dsl, settings.idempotencyKeyRetention(), runtime.registry(), clock);
    runtime
        .supervisor()
        .start(KEY_RETENTION_LOOP, Loop.every(KEY_RETENTION_INTERVAL, keys::runOnce));
    api =
        runtime.keep(
            new OrderHttpServer(orders, settings.auth(), authenticator, runtime.registry(), clock)
                .start(settings.host(), settings.port(), settings.httpThreads()));
    runtime.started();
    return this;
  }

  public OrderServiceSettings settings() {
    return settings;
  }

  /** The API's port (the one picked when the settings said 0). */
  public int port() {
    return api.port();
  }

  /** The service behind the API, once started (the demo's rolled-back order, tests). */
  public OrderService orders() {
    return orders;
  }
}
