package dev.ordinal.order;

import static dev.ordinal.messaging.ConfigurationException.check;

import dev.ordinal.messaging.ConfigurationException;
import dev.ordinal.messaging.db.DatabaseSettings;
import dev.ordinal.messaging.outbox.OutboxRetentionConfig;
import dev.ordinal.messaging.outbox.OutboxRetentionMode;
import dev.ordinal.runtime.ManagementSettings;
import dev.ordinal.runtime.ServiceSettingsBuilder;
import dev.ordinal.runtime.settings.Check;
import dev.ordinal.runtime.settings.Setting;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Everything order-service ({@link OrderServiceApp}) is started with, checked once by the compact
 * constructor: each problem is one {@link ConfigurationException} sentence naming the option, in
 * the words of its {@link Setting} (see docs/OPERATIONS.md for the environment variables and
 * properties file keys that set the same). Each setting is written once, in {@link #ALL}; build
 * with {@link #builder}, change with {@link #toBuilder()}.
 *
 * @param db the database; the service's schema is {@code schema}
 * @param schema the service's schema: orders, lines, idempotency keys, outbox
 * @param host the interface the HTTP API listens on: {@link #DEFAULT_HOST}, every interface, unless
 *     narrowed
 * @param port the HTTP API's port; 0 picks a free one
 * @param poolSize database connections
 * @param httpThreads the most threads the HTTP API's Jetty pool runs requests on
 * @param outboxRetentionMode what happens to published outbox rows
 * @param outboxRetentionAge how long they are kept, unless deleted on write
 * @param idempotencyKeyRetention how long an {@code Idempotency-Key} is remembered: a retry with
 *     the same key within it gets the first answer
 * @param auth how callers are authenticated ({@link ApiAuth}); there is no default: a service
 *     started without it is refused with {@link ApiAuth#NOT_CHOSEN}
 * @param management where health and metrics are served
 */
public record OrderServiceSettings(
    DatabaseSettings db,
    String schema,
    String host,
    int port,
    int poolSize,
    int httpThreads,
    OutboxRetentionMode outboxRetentionMode,
    Duration outboxRetentionAge,
    Duration idempotencyKeyRetention,
    ApiAuth auth,
    ManagementSettings management) {

  public static final String DEFAULT_SCHEMA = "orders";

  /** Every interface: the API is for other machines (health and metrics stay on this one). */
  public static final String DEFAULT_HOST = "0.0.0.0";

  public static final int DEFAULT_POOL_SIZE = 16;

  /** Javalin's own default for Jetty's pool; {@code bench orders} compares it with fewer. */
  public static final int DEFAULT_HTTP_THREADS = 250;

  /**
   * Fewer threads than this may not leave Jetty one for a request once its selectors have theirs.
   */
  public static final int MIN_HTTP_THREADS = 8;

  public static final int MAX_HTTP_THREADS = 1000;
  public static final Duration DEFAULT_IDEMPOTENCY_KEY_RETENTION = Duration.ofHours(24);
  public static final int DEFAULT_MANAGEMENT_PORT = 9410;

  public static final Setting<String> SCHEMA =
      Setting.string(
          "schema",
          DEFAULT_SCHEMA,
          "The service's schema: orders, lines, idempotency keys, outbox",
          DatabaseSettings.SCHEMA_NAME);
  public static final Setting<String> HOST =
      Setting.string(
          "host",
          DEFAULT_HOST,
          "Interface the HTTP API listens on: 0.0.0.0 is every interface, 127.0.0.1 this machine"
              + " only",
          Check.notBlank());
  public static final Setting<Integer> PORT =
      Setting.integer(
          "port",
          OrderHttpServer.DEFAULT_PORT,
          "Port of the HTTP API; 0 picks a free one",
          Check.range(0, 65535));
  public static final Setting<Integer> POOL_SIZE =
      Setting.integer("pool-size", DEFAULT_POOL_SIZE, "Database connections", Check.range(1, 200));
  public static final Setting<Integer> HTTP_THREADS =
      Setting.integer(
          "http-threads",
          DEFAULT_HTTP_THREADS,
          "Most threads in the HTTP API's Jetty pool, "
              + MIN_HTTP_THREADS
              + " to "
              + MAX_HTTP_THREADS
              + "; the default is Javalin's own, and 'bench orders' compares it with fewer",
          Check.range(MIN_HTTP_THREADS, MAX_HTTP_THREADS));
  public static final Setting<OutboxRetentionMode> OUTBOX_RETENTION = OutboxRetentionConfig.MODE;
  public static final Setting<Duration> OUTBOX_RETENTION_AGE = OutboxRetentionConfig.RETENTION;
  public static final Setting<Duration> IDEMPOTENCY_KEY_RETENTION =
      Setting.duration(
          "idempotency-key-retention",
          DEFAULT_IDEMPOTENCY_KEY_RETENTION,
          "How long an Idempotency-Key is remembered: a retry with the same key within it gets the"
              + " first answer, a later one places a new order",
          Check.positive());
  public static final Setting<Integer> MANAGEMENT_PORT =
      ManagementSettings.portSetting(DEFAULT_MANAGEMENT_PORT);
  public static final Setting<String> MANAGEMENT_HOST = ManagementSettings.HOST;

  /** Every setting of order-service: its options, variables and file keys. */
  public static final List<Setting<?>> ALL =
      List.of(
          SCHEMA,
          HOST,
          PORT,
          POOL_SIZE,
          HTTP_THREADS,
          OUTBOX_RETENTION,
          OUTBOX_RETENTION_AGE,
          IDEMPOTENCY_KEY_RETENTION,
          ApiAuth.AUTH,
          ApiAuth.JWT_ISSUER,
          ApiAuth.JWT_AUDIENCE,
          ApiAuth.JWKS_FILE,
          ApiAuth.JWKS_URL,
          ApiAuth.JWT_CLOCK_SKEW,
          MANAGEMENT_PORT,
          MANAGEMENT_HOST);

  public OrderServiceSettings {
    // it writes orders and its outbox: with several hosts, only the primary (a standby says 25006)
    db = Objects.requireNonNull(db, "db").forPrimary();
    check(SCHEMA, schema);
    host = host == null ? DEFAULT_HOST : host;
    check(HOST, host);
    check(PORT, port);
    check(POOL_SIZE, poolSize);
    check(HTTP_THREADS, httpThreads);
    outboxRetention(outboxRetentionMode, outboxRetentionAge);
    check(IDEMPOTENCY_KEY_RETENTION, idempotencyKeyRetention);
    if (auth == null) {
      throw new ConfigurationException(ApiAuth.NOT_CHOSEN);
    }
    management =
        ManagementSettings.checked(management, MANAGEMENT_PORT, ConfigurationException::new);
  }

  /** What happens to published outbox rows: the mode, and their age unless deleted on write. */
  public OutboxRetentionConfig outboxRetention() {
    return outboxRetention(outboxRetentionMode, outboxRetentionAge);
  }

  private static OutboxRetentionConfig outboxRetention(OutboxRetentionMode mode, Duration age) {
    check(OUTBOX_RETENTION, mode);
    check(OUTBOX_RETENTION_AGE, age);
    // rows deleted as they are written have no age
    return OutboxRetentionConfig.of(mode, mode == OutboxRetentionMode.DELETE_ON_WRITE ? null : age);
  }

  /** Every setting its default, on {@code db}. */
  public static Builder builder(DatabaseSettings db) {
    return new Builder(db);
  }

  /** A copy to change. */
  public Builder toBuilder() {
    return builder(db)
        .schema(schema)
        .host(host)
        .port(port)
        .poolSize(poolSize)
        .httpThreads(httpThreads)
        .outboxRetention(outboxRetentionMode, outboxRetentionAge)
        .idempotencyKeyRetention(idempotencyKeyRetention)
        .auth(auth)
        .management(management);
  }

  /** Builds {@link OrderServiceSettings}; a setting not set takes its default ({@link #ALL}). */
  public static final class Builder extends ServiceSettingsBuilder<Builder> {
    private final DatabaseSettings db;

    private Builder(DatabaseSettings db) {
      super(ALL, MANAGEMENT_PORT);
      this.db = db;
    }

    public Builder schema(String s) {
      return set(SCHEMA, s);
    }

    /** The interface the HTTP API listens on; null: the default, every interface. */
    public Builder host(String h) {
      return set(HOST, h);
    }

    public Builder port(int p) {
      return set(PORT, p);
    }

    public Builder poolSize(int n) {
      return set(POOL_SIZE, n);
    }

    public Builder httpThreads(int n) {
      return set(HTTP_THREADS, n);
    }

    public Builder outboxRetention(OutboxRetentionMode mode, Duration age) {
      return set(OUTBOX_RETENTION, mode).set(OUTBOX_RETENTION_AGE, age);
    }

    public Builder idempotencyKeyRetention(Duration d) {
      return set(IDEMPOTENCY_KEY_RETENTION, d);
    }

    /** How callers are authenticated; null: not chosen, which {@link #build()} refuses. */
    public Builder auth(ApiAuth a) {
      set(ApiAuth.AUTH, a == null ? null : a.modeText());
      set(ApiAuth.JWT_ISSUER, a == null ? null : a.issuer());
      set(ApiAuth.JWT_AUDIENCE, a == null ? null : a.audience());
      set(ApiAuth.JWKS_FILE, a == null || a.jwksFile() == null ? null : a.jwksFile().toString());
      set(ApiAuth.JWKS_URL, a == null || a.jwksUrl() == null ? null : a.jwksUrl().toString());
      return set(ApiAuth.JWT_CLOCK_SKEW, a == null ? null : a.clockSkew());
    }

    /**
     * @throws ConfigurationException naming the first setting that is wrong
     */
    public OrderServiceSettings build() {
      return new OrderServiceSettings(
          db,
          values.get(SCHEMA),
          values.get(HOST),
          values.get(PORT),
          values.get(POOL_SIZE),
          values.get(HTTP_THREADS),
          values.get(OUTBOX_RETENTION),
          values.get(OUTBOX_RETENTION_AGE),
          values.get(IDEMPOTENCY_KEY_RETENTION),
          ApiAuth.of(
              values.get(ApiAuth.AUTH),
              values.get(ApiAuth.JWT_ISSUER),
              values.get(ApiAuth.JWT_AUDIENCE),
              values.get(ApiAuth.JWKS_FILE),
              values.get(ApiAuth.JWKS_URL),
              values.get(ApiAuth.JWT_CLOCK_SKEW)),
          management());
    }
  }
}
